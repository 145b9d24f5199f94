import HushDatabase
import HushProtocol
import HushRelayAPI

extension SQLCipherRelayStorage: BlobIndex {
    public func recordBlob(id: String, size: Int, uploader: [UInt8], quota: BlobQuota, createdAt: Int64, expiresAt: Int64) async throws {
        try write { db in
            try quota.check(adding: size, to: try Self.blobUsage(uploader: uploader, now: createdAt, db: db))
            try db.execute("INSERT INTO blobs (id, size, created_at, expires_at, uploader) VALUES (?, ?, ?, ?, ?)",
                           [id, size, createdAt, expiresAt, uploader])
        }
    }

    public func blobUsage(uploader: [UInt8], now: Int64) async throws -> BlobUsage {
        try read { db in try Self.blobUsage(uploader: uploader, now: now, db: db) }
    }

    public func totalBlobUsage(now: Int64) async throws -> BlobUsage {
        try read { db in
            try db.queryFirst("SELECT count(*), coalesce(sum(size), 0) FROM blobs WHERE expires_at > ?", [now]) {
                BlobUsage(count: try $0.get(0, as: Int.self), bytes: try $0.get(1, as: Int.self))
            } ?? BlobUsage(count: 0, bytes: 0)
        }
    }

    private static func blobUsage(uploader: [UInt8], now: Int64, db: Database) throws -> BlobUsage {
        try db.queryFirst("SELECT count(*), coalesce(sum(size), 0) FROM blobs WHERE uploader = ? AND expires_at > ?", [uploader, now]) {
            BlobUsage(count: try $0.get(0, as: Int.self), bytes: try $0.get(1, as: Int.self))
        } ?? BlobUsage(count: 0, bytes: 0)
    }

    public func blob(id: String, now: Int64) async throws -> BlobRecord? {
        try read { db in
            try db.queryFirst("SELECT size, created_at, expires_at FROM blobs WHERE id = ? AND expires_at > ?", [id, now]) { row in
                BlobRecord(id: id, size: try row.get(0, as: Int.self), createdAt: try row.get(1, as: Int64.self), expiresAt: try row.get(2, as: Int64.self),
                           uploader: nil)
            }
        }
    }

    public func deleteBlob(id: String, uploader: [UInt8], now: Int64) async throws -> Bool {
        try write { db in
            try db.execute("DELETE FROM blobs WHERE id = ? AND uploader = ? AND expires_at > ?", [id, uploader, now])
            return db.changes == 1
        }
    }
}
