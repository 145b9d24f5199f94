import HushCrypto
import HushDatabase

/// Message keys kept for messages that arrive out of order, per owner (a
/// contact, or a session with one of our own devices: one table each, see
/// `MessageStore`), indexed by the header key of the message's chain (the
/// `ratchet_key` column) and the message counter. The protocol bounds how
/// many it keeps; `evict` applies those bounds here.
public struct SkippedKeyRepository {
    let database: Database
    /// The table and its owner column: constants of `MessageStore`, never input.
    let table: String
    let ownerColumn: String

    public func store(messageKey: SecureBytes, owner: Int64, ratchetKey: [UInt8], counter: Int64, at time: Milliseconds) throws {
        var bytes = messageKey.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        try database.execute("""
            INSERT OR REPLACE INTO \(table)(\(ownerColumn), ratchet_key, counter, message_key, created_at)
            VALUES (?, ?, ?, ?, ?)
            """, [owner, ratchetKey, counter, bytes, time])
    }

    /// The key stored for message `counter` of the chain `ratchetKey`, if any.
    public func messageKey(owner: Int64, ratchetKey: [UInt8], counter: Int64) throws -> SecureBytes? {
        try database.queryFirst("""
            SELECT message_key FROM \(table) WHERE \(ownerColumn) = ? AND ratchet_key = ? AND counter = ?
            """, [owner, ratchetKey, counter]) { row in
            var bytes = try row.get(0, as: [UInt8].self)
            defer { ConstantTime.wipe(&bytes) }
            return SecureBytes(copying: bytes)
        }
    }

    /// Deletes the key of message `counter` of the chain `ratchetKey`: it opened its message.
    public func delete(owner: Int64, ratchetKey: [UInt8], counter: Int64) throws {
        try database.execute("DELETE FROM \(table) WHERE \(ownerColumn) = ? AND ratchet_key = ? AND counter = ?",
                             [owner, ratchetKey, counter])
    }

    /// Returns the key and deletes it: a skipped key opens one message once.
    public func take(owner: Int64, ratchetKey: [UInt8], counter: Int64) throws -> SecureBytes? {
        try database.withinTransaction { _ in
            let key = try messageKey(owner: owner, ratchetKey: ratchetKey, counter: counter)
            if key != nil { try delete(owner: owner, ratchetKey: ratchetKey, counter: counter) }
            return key
        }
    }

    public func count(owner: Int64) throws -> Int {
        try database.queryFirst("SELECT count(*) FROM \(table) WHERE \(ownerColumn) = ?", [owner]) { try $0.get(0) } ?? 0
    }

    /// Keeps the newest `maximum` keys of the contact, deleting the oldest.
    public func trim(owner: Int64, keepingNewest maximum: Int) throws {
        try database.execute("""
            DELETE FROM \(table) WHERE \(ownerColumn) = ? AND id NOT IN (
                SELECT id FROM \(table) WHERE \(ownerColumn) = ? ORDER BY id DESC LIMIT ?)
            """, [owner, owner, maximum])
    }

    /// Deletes keys stored before `time` (expired).
    public func deleteOlder(than time: Milliseconds) throws {
        try database.execute("DELETE FROM \(table) WHERE created_at < ?", [time])
    }

    /// Deletes one contact's keys stored before `time` (expired).
    public func deleteOlder(than time: Milliseconds, owner: Int64) throws {
        try database.execute("DELETE FROM \(table) WHERE \(ownerColumn) = ? AND created_at < ?", [owner, time])
    }
}
