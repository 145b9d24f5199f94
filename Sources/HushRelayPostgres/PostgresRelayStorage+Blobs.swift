import HushCrypto
import HushRelay
import PostgresNIO

extension PostgresRelayStorage: BlobIndex {
    public func recordBlob(id: String, size: Int, uploader: [UInt8], quota: BlobQuota, createdAt: Int64, expiresAt: Int64) async throws {
        try await transaction { connection in
            // Serialises one uploader's blobs across instances, so the quota holds.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(Hex.encode(uploader)), 0))", logger: logger)
            try quota.check(adding: size, to: try await blobUsage(uploader: uploader, now: createdAt, on: connection))
            try await connection.query("""
                INSERT INTO blobs (id, size, created_at, expires_at, uploader)
                VALUES (\(id), \(Int64(size)), \(createdAt), \(expiresAt), \(uploader.bytea))
                """, logger: logger)
        }
    }

    public func blobUsage(uploader: [UInt8], now: Int64) async throws -> BlobUsage {
        try await transaction { connection in try await blobUsage(uploader: uploader, now: now, on: connection) }
    }

    public func totalBlobUsage(now: Int64) async throws -> BlobUsage {
        try await guarded {
            var usage = BlobUsage(count: 0, bytes: 0)
            let rows = try await client.query("SELECT count(*), coalesce(sum(size), 0)::bigint FROM blobs WHERE expires_at > \(now)", logger: logger)
            for try await (count, bytes) in rows.decode((Int64, Int64).self) { usage = BlobUsage(count: Int(count), bytes: Int(bytes)) }
            return usage
        }
    }

    private func blobUsage(uploader: [UInt8], now: Int64, on connection: PostgresConnection) async throws -> BlobUsage {
        var usage = BlobUsage(count: 0, bytes: 0)
        let rows = try await connection.query(
            "SELECT count(*), coalesce(sum(size), 0)::bigint FROM blobs WHERE uploader = \(uploader.bytea) AND expires_at > \(now)", logger: logger)
        for try await (count, bytes) in rows.decode((Int64, Int64).self) { usage = BlobUsage(count: Int(count), bytes: Int(bytes)) }
        return usage
    }

    public func blob(id: String, now: Int64) async throws -> BlobRecord? {
        try await guarded {
            let rows = try await client.query("SELECT size, created_at, expires_at FROM blobs WHERE id = \(id) AND expires_at > \(now)", logger: logger)
            var record: BlobRecord?
            for try await (size, created, expires) in rows.decode((Int64, Int64, Int64).self) {
                record = BlobRecord(id: id, size: Int(size), createdAt: created, expiresAt: expires, uploader: nil)
            }
            return record
        }
    }

    public func deleteBlob(id: String, uploader: [UInt8], now: Int64) async throws -> Bool {
        try await guarded {
            var deleted = false
            let rows = try await client.query(
                "DELETE FROM blobs WHERE id = \(id) AND uploader = \(uploader.bytea) AND expires_at > \(now) RETURNING id", logger: logger)
            for try await _ in rows.decode(String.self) { deleted = true }
            return deleted
        }
    }
}
