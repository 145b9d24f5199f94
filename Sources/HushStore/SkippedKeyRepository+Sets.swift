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

    /// Replaces a contact's skipped keys with `keys` (oldest first). A key
    /// that was already stored keeps the time it was first stored, so the
    /// age bound (`deleteOlder`) counts from when the message was skipped,
    /// not from the last rewrite.
    public func replaceAll(contactId: Int64, with keys: [(headerKey: [UInt8], counter: Int64, messageKey: SecureBytes)],
                           at time: Milliseconds) throws {
        try database.withinTransaction { db in
            var firstStored: [SkippedKeyName: Milliseconds] = [:]
            for (name, stored) in try db.query("""
                SELECT ratchet_key, counter, created_at FROM skipped_message_keys WHERE contact_id = ?
                """, [contactId], { row in (SkippedKeyName(headerKey: try row.get(0), counter: try row.get(1)), try row.get(2, as: Int64.self)) }) {
                firstStored[name] = stored
            }
            try db.execute("DELETE FROM skipped_message_keys WHERE contact_id = ?", [contactId])
            for key in keys {
                let since = firstStored[SkippedKeyName(headerKey: key.headerKey, counter: key.counter)] ?? time
                try store(messageKey: key.messageKey, contactId: contactId, ratchetKey: key.headerKey, counter: key.counter, at: since)
            }
        }
    }
}

/// Which message a skipped key opens: the chain's header key and the counter.
private struct SkippedKeyName: Hashable {
    let headerKey: [UInt8]
    let counter: Int64
}
