import HushRelay
import HushRelayAPI
import PostgresNIO

extension PostgresRelayStorage: ExpiryStore {
    /// Every instance sweeps; a transaction-scoped advisory lock lets one at a
    /// time do it (the others find nothing left).
    public func sweep(now: Int64) async throws -> SweepResult {
        try await transaction { connection in
            var result = SweepResult()
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock + 1))", logger: logger)
            // Mailbox rows stay (they hold the last message id, which must never go back).
            // Locked first, in the order deposits lock them, so the two cannot deadlock.
            try await connection.query("""
                SELECT 1 FROM mailboxes WHERE mailbox IN (SELECT DISTINCT mailbox FROM messages WHERE expires_at <= \(now))
                ORDER BY mailbox FOR UPDATE
                """, logger: logger)
            let gone = try await connection.query("""
                WITH gone AS (DELETE FROM messages WHERE expires_at <= \(now) RETURNING mailbox, size),
                     totals AS (SELECT mailbox, count(*) AS n, sum(size) AS b FROM gone GROUP BY mailbox),
                     updated AS (UPDATE mailboxes m SET count = m.count - t.n, bytes = m.bytes - t.b FROM totals t WHERE m.mailbox = t.mailbox RETURNING t.n)
                SELECT coalesce(sum(n), 0)::bigint FROM updated
                """, logger: logger)
            for try await n in gone.decode(Int64.self) { result.envelopes = Int(n) }
            result.depositRecords = try await deleteCount("deposits", now: now, on: connection)
            result.challenges = try await deleteCount("challenges", now: now, on: connection)
            result.tokens = try await deleteCount("tokens", now: now, on: connection)
            for try await id in try await connection.query("DELETE FROM blobs WHERE expires_at <= \(now) RETURNING id", logger: logger)
                .decode(String.self) { result.expiredBlobIDs.append(id) }
            result.expiredBlobIDs.sort()
            let unwritten = now - RelayLimits.directoryLifetimeSeconds * 1000
            let directories = try await connection.query(
                "WITH gone AS (DELETE FROM directories WHERE written_at <= \(unwritten) RETURNING 1) SELECT count(*) FROM gone", logger: logger)
            for try await n in directories.decode(Int64.self) { result.directories = Int(n) }
            return result
        }
    }

    private func deleteCount(_ table: String, now: Int64, on connection: PostgresConnection) async throws -> Int {
        var count = 0
        // `table` is one of this file's constants, never input.
        let query = PostgresQuery(unsafeSQL: "WITH gone AS (DELETE FROM \(table) WHERE expires_at <= $1 RETURNING 1) SELECT count(*) FROM gone",
                                  binds: { var binds = PostgresBindings(); binds.append(now); return binds }())
        for try await n in try await connection.query(query, logger: logger).decode(Int64.self) { count = Int(n) }
        return count
    }
}

extension PostgresRelayStorage: InventoryStore {
    /// The whole database's size on the server (tables, indexes, TOAST).
    public func bytesOutsideDataDirectory() async throws -> Int64 {
        try await guarded {
            let rows = try await client.query("SELECT pg_database_size(current_database())", logger: logger)
            for try await size in rows.decode(Int64.self) { return size }
            return 0
        }
    }

    public func inventory() async throws -> RelayInventory {
        try await transaction { connection in
            var inventory = RelayInventory()
            let identities = try await connection.query("""
                SELECT i.identity, i.registered_at, i.signed_prekey, i.last_resort_kem_prekey,
                    (SELECT count(*) FROM one_time_prekeys p WHERE p.identity = i.identity AND p.kind = 2),
                    (SELECT count(*) FROM one_time_prekeys p WHERE p.identity = i.identity AND p.kind = 4),
                    (SELECT count(*) FROM credentials c WHERE c.mailbox = i.identity)
                FROM identities i ORDER BY i.identity
                """, logger: logger)
            for try await (identity, at, signed, lastResort, x25519, kem, credentials) in identities
                .decode((ByteBuffer, Int64, ByteBuffer, ByteBuffer, Int64, Int64, Int64).self) {
                inventory.identities.append(.init(
                    identity: identity.bytes, registeredAt: at, signedPrekeyID: try PrekeyCodec.decode(signed.bytes).id,
                    lastResortKEMPrekeyID: try PrekeyCodec.decode(lastResort.bytes).id, oneTimeX25519: Int(x25519), oneTimeKEM: Int(kem),
                    credentials: Int(credentials)))
            }
            let messages = try await connection.query("SELECT mailbox, id, created_at, expires_at, size FROM messages ORDER BY id, mailbox",
                                                      logger: logger)
            for try await (mailbox, id, created, expires, size) in messages.decode((ByteBuffer, Int64, Int64, Int64, Int32).self) {
                inventory.messages.append(.init(mailbox: mailbox.bytes, messageID: UInt64(id), timestamp: created, expiresAt: expires, size: Int(size)))
            }
            inventory.depositRecords = try await count("deposits", on: connection)
            inventory.challenges = try await count("challenges", on: connection)
            inventory.tokens = try await count("tokens", on: connection)
            let blobs = try await connection.query("SELECT id, size, created_at, expires_at, uploader FROM blobs ORDER BY id", logger: logger)
            for try await (id, size, created, expires, uploader) in blobs.decode((String, Int64, Int64, Int64, ByteBuffer?).self) {
                inventory.blobs.append(BlobRecord(id: id, size: Int(size), createdAt: created, expiresAt: expires, uploader: uploader?.bytes))
            }
            let directories = try await connection.query("SELECT name, counter, octet_length(record), written_at FROM directories ORDER BY name",
                                                         logger: logger)
            for try await (name, counter, size, written) in directories.decode((ByteBuffer, Int64, Int32, Int64).self) {
                inventory.directories.append(.init(name: name.bytes, counter: UInt64(counter), size: Int(size), writtenAt: written))
            }
            return inventory
        }
    }

    private func count(_ table: String, on connection: PostgresConnection) async throws -> Int {
        var count = 0
        // `table` is one of this file's constants, never input.
        for try await n in try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: logger).decode(Int64.self) {
            count = Int(n)
        }
        return count
    }
}
