import HushDatabase

extension Schema {
    /// Version 28: what a sender needs to answer a member's decryption error
    /// for a group content that history does not show (a reaction, an edit,
    /// a deletion: docs/PROTOCOL.md §10.1). Version 8 remembers group
    /// envelopes of messages in history only, so a reaction, an edit or a
    /// deletion a restored member could not open was never sent again.
    /// Each such group envelope is remembered by its SHA-256 with the
    /// content (encoded) and the group's conversation, until the relay would
    /// have expired it; a resend is recorded per content id and member, so
    /// each member has each content sealed again at most once.
    static func addGroupContentResends(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE sent_group_contents(
                digest BLOB PRIMARY KEY,
                conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                content_id BLOB NOT NULL,
                content BLOB NOT NULL,
                sealed_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX sent_group_contents_by_time ON sent_group_contents(sealed_at);
            CREATE TABLE group_content_resends(
                content_id BLOB NOT NULL,
                member_key BLOB NOT NULL,
                resent_at INTEGER NOT NULL,
                PRIMARY KEY (content_id, member_key)
            ) WITHOUT ROWID;
            """)
    }
}
