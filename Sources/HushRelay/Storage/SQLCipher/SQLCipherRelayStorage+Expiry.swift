import HushDatabase
import HushProtocol
import HushRelayAPI

extension SQLCipherRelayStorage: ExpiryStore {
    /// The sweep's statements over the growing tables, each with the expiry
    /// time as its one argument. The sweep runs in a write transaction under
    /// the storage's lock, so every deposit waits for it: each must find the
    /// expired rows through an expiry index, never walk the table.
    /// `GROUP BY +mailbox`: with a plain `GROUP BY mailbox`, the SQLite of
    /// Debian's SQLCipher (3.15) reads every message through
    /// `messages_by_mailbox` (already in group order) and looks each one's
    /// row up to test its expiry: once a minute, a walk of the whole table
    /// with the lock held, which stalled every deposit for seconds under
    /// load (issue 35, item 1). The unary `+` keeps the index out of the
    /// grouping, so the expired messages come from `messages_by_expiry` and
    /// are grouped in a temporary B-tree (as many rows as expire).
    static let expiredUsageSQL = "SELECT mailbox, count(*), sum(size) FROM messages WHERE expires_at <= ? GROUP BY +mailbox"
    static let deleteExpiredMessagesSQL = "DELETE FROM messages WHERE expires_at <= ?"
    static let deleteExpiredDepositsSQL = "DELETE FROM deposits WHERE expires_at <= ?"

    public func sweep(now: Int64) async throws -> SweepResult {
        try write { db in
            var result = SweepResult()
            let usage = try db.query(Self.expiredUsageSQL, [now]) { row in
                (try row.get(0, as: [UInt8].self), try row.get(1, as: Int.self), try row.get(2, as: Int.self))
            }
            for (mailbox, count, bytes) in usage {
                try db.execute("UPDATE mailbox_usage SET count = count - ?, bytes = bytes - ? WHERE mailbox = ?", [count, bytes, mailbox])
                result.envelopes += count
            }
            try db.execute(Self.deleteExpiredMessagesSQL, [now])
            try db.execute("DELETE FROM mailbox_usage WHERE count <= 0")
            try db.execute(Self.deleteExpiredDepositsSQL, [now])
            result.depositRecords = db.changes
            try db.execute("DELETE FROM challenges WHERE expires_at <= ?", [now])
            result.challenges = db.changes
            try db.execute("DELETE FROM tokens WHERE expires_at <= ?", [now])
            result.tokens = db.changes
            result.expiredBlobIDs = try db.query("SELECT id FROM blobs WHERE expires_at <= ? ORDER BY id", [now]) { try $0.get(0, as: String.self) }
            try db.execute("DELETE FROM blobs WHERE expires_at <= ?", [now])
            try db.execute("DELETE FROM directories WHERE written_at <= ?", [now - RelayLimits.directoryLifetimeSeconds * 1000])
            result.directories = db.changes
            return result
        }
    }
}

extension SQLCipherRelayStorage: InventoryStore {
    public func inventory() async throws -> RelayInventory {
        try read { db in
            var inventory = RelayInventory()
            inventory.identities = try db.query("""
                SELECT i.identity, i.registered_at, i.signed_prekey, i.last_resort_kem_prekey,
                    (SELECT count(*) FROM one_time_prekeys p WHERE p.identity = i.identity AND p.kind = 2),
                    (SELECT count(*) FROM one_time_prekeys p WHERE p.identity = i.identity AND p.kind = 4),
                    (SELECT count(*) FROM credentials c WHERE c.mailbox = i.identity)
                FROM identities i ORDER BY i.identity
                """) { row in
                RelayInventory.Identity(
                    identity: try row.get(0, as: [UInt8].self), registeredAt: try row.get(1, as: Int64.self),
                    signedPrekeyID: try PrekeyCodec.decode(row.get(2, as: [UInt8].self)).id,
                    lastResortKEMPrekeyID: try PrekeyCodec.decode(row.get(3, as: [UInt8].self)).id,
                    oneTimeX25519: try row.get(4, as: Int.self), oneTimeKEM: try row.get(5, as: Int.self),
                    credentials: try row.get(6, as: Int.self))
            }
            inventory.messages = try db.query("SELECT mailbox, id, created_at, expires_at, size FROM messages ORDER BY id") { row in
                RelayInventory.Message(mailbox: try row.get(0, as: [UInt8].self), messageID: UInt64(try row.get(1, as: Int64.self)),
                                       timestamp: try row.get(2, as: Int64.self), expiresAt: try row.get(3, as: Int64.self),
                                       size: try row.get(4, as: Int.self))
            }
            inventory.depositRecords = try db.queryFirst("SELECT count(*) FROM deposits") { try $0.get(0, as: Int.self) } ?? 0
            inventory.challenges = try db.queryFirst("SELECT count(*) FROM challenges") { try $0.get(0, as: Int.self) } ?? 0
            inventory.tokens = try db.queryFirst("SELECT count(*) FROM tokens") { try $0.get(0, as: Int.self) } ?? 0
            inventory.blobs = try db.query("SELECT id, size, created_at, expires_at, uploader FROM blobs ORDER BY id") { row in
                BlobRecord(id: try row.get(0, as: String.self), size: try row.get(1, as: Int.self),
                           createdAt: try row.get(2, as: Int64.self), expiresAt: try row.get(3, as: Int64.self),
                           uploader: try row.get(4, as: [UInt8]?.self))
            }
            inventory.directories = try db.query("SELECT name, counter, length(record), written_at FROM directories ORDER BY name") { row in
                RelayInventory.Directory(name: try row.get(0, as: [UInt8].self), counter: UInt64(try row.get(1, as: Int64.self)),
                                         size: try row.get(2, as: Int.self), writtenAt: try row.get(3, as: Int64.self))
            }
            return inventory
        }
    }
}
