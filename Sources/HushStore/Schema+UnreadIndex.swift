import HushDatabase

extension Schema {
    /// Version 27: the incoming messages not yet read, indexed apart in each
    /// conversation's display order. Opening a conversation marks what it
    /// shows read, which first looks for those messages (and, when there are
    /// any, counts them again for the list's summary): through
    /// `messages_by_position` that read every row of the conversation, a
    /// page decrypted for nearly every message, since a conversation's rows
    /// lie among all the others' (`make bench BENCH=largeaccount`). The index
    /// is partial: a message leaves it when it is read, so it holds only what
    /// is unread, and an insert of a read or outgoing message does not write it.
    static func addUnreadIndex(_ db: Database) throws {
        try db.execute("""
            CREATE INDEX messages_unread ON messages(conversation_id, position, id) WHERE direction = 'in' AND read_at IS NULL
            """)
    }
}
