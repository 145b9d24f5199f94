import HushCrypto
import HushDatabase

/// Message keys kept for messages that arrive out of order, per contact,
/// indexed by the header key of the message's chain (the `ratchet_key`
/// column) and the message counter. The protocol bounds how many it keeps;
/// `evict` applies those bounds here.
public struct SkippedKeyRepository {
    let database: Database

    public func store(messageKey: SecureBytes, contactId: Int64, ratchetKey: [UInt8], counter: Int64, at time: Milliseconds) throws {
        var bytes = messageKey.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        try database.execute("""
            INSERT OR REPLACE INTO skipped_message_keys(contact_id, ratchet_key, counter, message_key, created_at)
            VALUES (?, ?, ?, ?, ?)
            """, [contactId, ratchetKey, counter, bytes, time])
    }

    /// The key stored for message `counter` of the chain `ratchetKey`, if any.
    public func messageKey(contactId: Int64, ratchetKey: [UInt8], counter: Int64) throws -> SecureBytes? {
        try database.queryFirst("""
            SELECT message_key FROM skipped_message_keys WHERE contact_id = ? AND ratchet_key = ? AND counter = ?
            """, [contactId, ratchetKey, counter]) { row in
            var bytes = try row.get(0, as: [UInt8].self)
            defer { ConstantTime.wipe(&bytes) }
            return SecureBytes(copying: bytes)
        }
    }

    /// Deletes the key of message `counter` of the chain `ratchetKey`: it opened its message.
    public func delete(contactId: Int64, ratchetKey: [UInt8], counter: Int64) throws {
        try database.execute("DELETE FROM skipped_message_keys WHERE contact_id = ? AND ratchet_key = ? AND counter = ?",
                             [contactId, ratchetKey, counter])
    }

    /// Returns the key and deletes it: a skipped key opens one message once.
    public func take(contactId: Int64, ratchetKey: [UInt8], counter: Int64) throws -> SecureBytes? {
        try database.withinTransaction { _ in
            let key = try messageKey(contactId: contactId, ratchetKey: ratchetKey, counter: counter)
            if key != nil { try delete(contactId: contactId, ratchetKey: ratchetKey, counter: counter) }
            return key
        }
    }

    public func count(contactId: Int64) throws -> Int {
        try database.queryFirst("SELECT count(*) FROM skipped_message_keys WHERE contact_id = ?", [contactId]) { try $0.get(0) } ?? 0
    }

    /// Keeps the newest `maximum` keys of the contact, deleting the oldest.
    public func trim(contactId: Int64, keepingNewest maximum: Int) throws {
        try database.execute("""
            DELETE FROM skipped_message_keys WHERE contact_id = ? AND id NOT IN (
                SELECT id FROM skipped_message_keys WHERE contact_id = ? ORDER BY id DESC LIMIT ?)
            """, [contactId, contactId, maximum])
    }

    /// Deletes keys stored before `time` (expired).
    public func deleteOlder(than time: Milliseconds) throws {
        try database.execute("DELETE FROM skipped_message_keys WHERE created_at < ?", [time])
    }

    /// Deletes one contact's keys stored before `time` (expired).
    public func deleteOlder(than time: Milliseconds, contactId: Int64) throws {
        try database.execute("DELETE FROM skipped_message_keys WHERE contact_id = ? AND created_at < ?", [contactId, time])
    }
}
