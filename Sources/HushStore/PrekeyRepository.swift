import HushCrypto
import HushDatabase

/// Our own private prekeys (signed and one-time), by kind and id. `kind` is
/// the protocol's name for the prekey kind; the store does not interpret it.
public struct PrekeyRepository {
    let database: Database

    public struct StoredPrekey: Sendable {
        public let kind: String
        public let id: Int64
        public let privateKey: SecureBytes
        public let publicKey: [UInt8]
        public let createdAt: Milliseconds
        public let usedAt: Milliseconds?
    }

    public func save(kind: String, id: Int64, privateKey: SecureBytes, publicKey: [UInt8], at time: Milliseconds) throws {
        var bytes = privateKey.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        try database.execute("""
            INSERT INTO prekeys(kind, key_id, private_key, public_key, created_at) VALUES (?, ?, ?, ?, ?)
            """, [kind, id, bytes, publicKey, time])
    }

    public func prekey(kind: String, id: Int64) throws -> StoredPrekey? {
        try database.queryFirst("""
            SELECT private_key, public_key, created_at, used_at FROM prekeys WHERE kind = ? AND key_id = ?
            """, [kind, id]) { row in
            var bytes = try row.get(0, as: [UInt8].self)
            defer { ConstantTime.wipe(&bytes) }
            return StoredPrekey(kind: kind, id: id, privateKey: SecureBytes(copying: bytes, storage: .guarded),
                                publicKey: try row.get(1), createdAt: try row.get(2), usedAt: try row.get(3))
        }
    }

    public func markUsed(kind: String, id: Int64, at time: Milliseconds) throws {
        try database.execute("UPDATE prekeys SET used_at = coalesce(used_at, ?) WHERE kind = ? AND key_id = ?", [time, kind, id])
    }

    /// How many unused prekeys of `kind` remain (to know when to upload more).
    public func unusedCount(kind: String) throws -> Int {
        try database.queryFirst("SELECT count(*) FROM prekeys WHERE kind = ? AND used_at IS NULL", [kind]) { try $0.get(0) } ?? 0
    }

    public func highestId(kind: String) throws -> Int64? {
        try database.queryFirst("SELECT max(key_id) FROM prekeys WHERE kind = ?", [kind]) { try $0.get(0, as: Int64?.self) } ?? nil
    }

    /// Forgets every prekey (a linked device's copy of its account's: the
    /// device publishes its own, signed by its own key).
    public func deleteAll() throws {
        try database.execute("DELETE FROM prekeys")
    }

    public func delete(kind: String, id: Int64) throws {
        try database.execute("DELETE FROM prekeys WHERE kind = ? AND key_id = ?", [kind, id])
    }
}
