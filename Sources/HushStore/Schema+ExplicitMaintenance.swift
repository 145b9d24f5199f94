import HushDatabase

extension Schema {
    /// Version 6: the search index and the conversation summaries are kept
    /// by `MessageRepository.insert` instead of per-row `AFTER INSERT`
    /// triggers (see there why: a trigger forces a statement journal per
    /// row). The triggers for UPDATE and DELETE stay: those are rare.
    static func dropInsertTriggers(_ db: Database) throws {
        try db.execute("""
            DROP TRIGGER messages_summary_after_insert;
            DROP TRIGGER messages_fts_after_insert;
            """)
    }
}
