import HushDatabase

extension Schema {
    /// Version 8: what a sender needs to answer a decryption error. Each
    /// envelope sealed for a message shown in history is remembered by its
    /// SHA-256 (the name a receiver that cannot open it gives it) until the
    /// relay would have expired it; a message resent on request is
    /// recorded, so it is resent automatically at most once.
    static func addResends(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE sent_envelopes(
                digest BLOB PRIMARY KEY,
                message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                sealed_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX sent_envelopes_by_time ON sent_envelopes(sealed_at);
            CREATE TABLE message_resends(
                message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
                resent_at INTEGER NOT NULL
            );
            """)
    }
}
