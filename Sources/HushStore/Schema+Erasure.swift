import HushDatabase

extension Schema {
    /// Version 25: deletion and disappearing messages (docs/PROTOCOL.md §10.7).
    /// An erased message keeps its row as a tombstone: an empty body (so no
    /// search entry), `content_type` 'deleted' (shown as deleted) or
    /// 'expired' (not shown at all), and `deleted_at`; keeping the row keeps
    /// its client message id, so a late copy of the message is a duplicate
    /// and never comes back. `expires_after` is the timer (seconds) a message
    /// was sent under, `expires_at` when it goes (set once it is read).
    /// `conversations.disappearing_after` is the conversation's current timer
    /// (seconds, NULL = off). `early_deletions` remembers a deletion that
    /// arrived before its message, so the message is stored as deleted.
    static func addErasure(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE messages ADD COLUMN deleted_at INTEGER;
            ALTER TABLE messages ADD COLUMN expires_after INTEGER;
            ALTER TABLE messages ADD COLUMN expires_at INTEGER;
            CREATE INDEX messages_by_expiry ON messages(expires_at) WHERE expires_at IS NOT NULL AND deleted_at IS NULL;
            ALTER TABLE conversations ADD COLUMN disappearing_after INTEGER;
            CREATE TABLE early_deletions(
                client_message_id TEXT NOT NULL,
                sender TEXT NOT NULL,
                received_at INTEGER NOT NULL,
                PRIMARY KEY (client_message_id, sender)
            ) WITHOUT ROWID;
            """)
    }
}
