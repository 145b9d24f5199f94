import HushDatabase

extension Schema {
    /// Version 26: a group message is resent after a decryption error at
    /// most once per member, not once in all (docs/PROTOCOL.md §19.4): two
    /// members restored at the same time each need it sealed again for
    /// them, and version 8's mark (one row per message) let only the first
    /// have it. `member_key` is the identity key of the member it was resent
    /// to; empty for a one-to-one message (its one recipient is the
    /// conversation's contact). A group message resent before this version
    /// keeps an empty key: which member had it is not known, so each member
    /// may have it once more, no more.
    static func addResendsPerMember(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE message_resends_per_member(
                message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                member_key BLOB NOT NULL DEFAULT x'',
                resent_at INTEGER NOT NULL,
                PRIMARY KEY (message_id, member_key)
            ) WITHOUT ROWID;
            INSERT INTO message_resends_per_member(message_id, member_key, resent_at)
                SELECT message_id, x'', resent_at FROM message_resends;
            DROP TABLE message_resends;
            ALTER TABLE message_resends_per_member RENAME TO message_resends;
            """)
    }
}
