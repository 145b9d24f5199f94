import HushDatabase

extension Schema {
    /// Version 21: replies and reactions (docs/PROTOCOL.md §10.5).
    /// `messages.reply_to` is the client message id a reply quotes, kept as
    /// it came (the quoted message may be unknown here, or arrive later); the
    /// reply's own text is its body, indexed for search like any text.
    /// `reactions` holds one row per message and reactor (an address): the
    /// latest change by the reactor's clock. A removal keeps its row with an
    /// empty emoji, so an older change delivered after it (a resend) cannot
    /// bring the reaction back; rows go with their message.
    static func addRepliesAndReactions(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE messages ADD COLUMN reply_to TEXT;
            CREATE TABLE reactions(
                message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                reactor TEXT NOT NULL,
                emoji TEXT NOT NULL,
                sent_at INTEGER NOT NULL,
                PRIMARY KEY (message_id, reactor)
            ) WITHOUT ROWID;
            """)
    }
}
