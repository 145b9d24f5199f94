import HushDatabase

extension Schema {
    /// Version 17: the content of every other envelope a sender seals to a
    /// contact (receipts, delivery credentials, group states and sender
    /// keys), by the envelope's SHA-256, until the relay would have expired
    /// it. A receiver that cannot open one (the losing side of crossed first
    /// messages, docs/PROTOCOL.md §11) names it in a decryption error, and the
    /// same content is sealed again on the current session, once: a lost
    /// group key would otherwise leave that member's group messages
    /// unreadable for ever. The content is plaintext in the encrypted store,
    /// as `group_deliveries` is before it is sealed.
    static func addContentResends(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE sent_contents(
                digest BLOB PRIMARY KEY,
                contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
                content BLOB NOT NULL,
                sealed_at INTEGER NOT NULL,
                resent INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            CREATE INDEX sent_contents_by_time ON sent_contents(sealed_at);
            """)
    }
}
