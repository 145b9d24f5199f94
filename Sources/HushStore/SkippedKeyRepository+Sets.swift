import HushCrypto
import HushDatabase

extension SkippedKeyRepository {
    /// Every skipped key of a contact's session, oldest first.
    public func all(contactId: Int64) throws -> [(headerKey: [UInt8], counter: Int64, messageKey: SecureBytes)] {
        try database.query("""
            SELECT ratchet_key, counter, message_key FROM skipped_message_keys WHERE contact_id = ? ORDER BY id
            """, [contactId]) { row in
            var key = try row.get(2, as: [UInt8].self)
            defer { ConstantTime.wipe(&key) }
            return (try row.get(0, as: [UInt8].self), try row.get(1, as: Int64.self), SecureBytes(copying: key))
        }
    }

    /// Replaces a contact's skipped keys with `keys` (oldest first).
    public func replaceAll(contactId: Int64, with keys: [(headerKey: [UInt8], counter: Int64, messageKey: SecureBytes)],
                           at time: Milliseconds) throws {
        try database.transaction { db in
            try db.execute("DELETE FROM skipped_message_keys WHERE contact_id = ?", [contactId])
            for key in keys {
                try store(messageKey: key.messageKey, contactId: contactId, ratchetKey: key.headerKey, counter: key.counter, at: time)
            }
        }
    }
}
