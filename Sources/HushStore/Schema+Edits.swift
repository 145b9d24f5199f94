import HushDatabase

extension Schema {
    /// Version 22: edits (docs/PROTOCOL.md §10.6). `messages.body` stays the
    /// text shown and indexed for search: an edit rewrites it, and the
    /// UPDATE triggers of version 3 move the search entry in the same
    /// transaction, so search finds the new text and never the old.
    /// `messages.edited_at` is the author's time of the edit shown (nil:
    /// never edited). `message_versions` keeps every version with its time:
    /// the original (written when the first edit arrives, with a null
    /// `edit_id`) and each edit by the client message id it came with, which
    /// is unique, so a resent edit is stored once. Versions go with their message.
    static func addEdits(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE messages ADD COLUMN edited_at INTEGER;
            CREATE TABLE message_versions(
                id INTEGER PRIMARY KEY,
                message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                edit_id TEXT UNIQUE,
                body TEXT NOT NULL,
                sent_at INTEGER NOT NULL
            );
            CREATE INDEX message_versions_by_message ON message_versions(message_id, sent_at);
            """)
    }
}
