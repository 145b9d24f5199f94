import HushDatabase

extension Schema {
    /// Version 6: the search index and the conversation summaries are kept
    /// by `MessageRepository.insert` instead of per-row `AFTER INSERT`
    /// triggers (see there why: a trigger forces a statement journal per
    /// row). The triggers for UPDATE and DELETE stay: those are rare.
    ///
    /// The activity index becomes the conversation list's exact ORDER BY
    /// (empty conversations last), so the list walks it instead of sorting
    /// every conversation with its last message; every insert already
    /// paid for keeping the old one, which no query could use.
    static func dropInsertTriggers(_ db: Database) throws {
        try db.execute("""
            DROP TRIGGER messages_summary_after_insert;
            DROP TRIGGER messages_fts_after_insert;
            DROP INDEX conversations_by_activity;
            CREATE INDEX conversations_by_activity ON conversations(last_activity_at IS NULL, last_activity_at DESC, id DESC);
            """)
    }
}
