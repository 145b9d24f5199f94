import HushDatabase

extension Schema {
    /// Version 39: a resend after a decryption error is allowed once per
    /// session of the peer, not once in all (docs/PROTOCOL.md §10.1). Two
    /// restores in a row lost a message: the first restored home asked for
    /// it and had it resent on its new session; the second, restored before
    /// the first read it, could not open that resend, asked again on its own
    /// new session, and was refused because the message had been resent
    /// once. Each resend now records the session it was sealed on (its
    /// handshake id, §8.4): one that fails on that same session earns
    /// nothing more (no loop), one asked for on a newer session earns one
    /// more; so the number of resends is bounded by the sessions the peer
    /// starts, each of which costs it a handshake.
    ///
    /// Rows kept from before have an empty session: not one the peer can
    /// ask on, so each such message or group content may be resent once
    /// more, no more. `content_resends` replaces `sent_contents.resent`
    /// (no longer read; the other contents resent before this version may
    /// each go once more per session): a content is named by its SHA-256,
    /// the same for the original envelope and every resend of it.
    static func addResendsPerSession(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE message_resends_per_session(
                message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                member_key BLOB NOT NULL DEFAULT x'',
                session BLOB NOT NULL DEFAULT x'',
                resent_at INTEGER NOT NULL,
                PRIMARY KEY (message_id, member_key, session)
            ) WITHOUT ROWID;
            INSERT INTO message_resends_per_session(message_id, member_key, session, resent_at)
                SELECT message_id, member_key, x'', resent_at FROM message_resends;
            DROP TABLE message_resends;
            ALTER TABLE message_resends_per_session RENAME TO message_resends;

            CREATE TABLE group_content_resends_per_session(
                content_id BLOB NOT NULL,
                member_key BLOB NOT NULL,
                session BLOB NOT NULL DEFAULT x'',
                resent_at INTEGER NOT NULL,
                PRIMARY KEY (content_id, member_key, session)
            ) WITHOUT ROWID;
            INSERT INTO group_content_resends_per_session(content_id, member_key, session, resent_at)
                SELECT content_id, member_key, x'', resent_at FROM group_content_resends;
            DROP TABLE group_content_resends;
            ALTER TABLE group_content_resends_per_session RENAME TO group_content_resends;

            CREATE TABLE content_resends(
                contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
                content_digest BLOB NOT NULL,
                session BLOB NOT NULL,
                resent_at INTEGER NOT NULL,
                PRIMARY KEY (contact_id, content_digest, session)
            ) WITHOUT ROWID;
            CREATE INDEX content_resends_by_time ON content_resends(resent_at);
            """)
    }
}
