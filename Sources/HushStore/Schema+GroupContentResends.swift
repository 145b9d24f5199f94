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
    ///
    /// Both tables of contents kept for resending name, for an edit, the
    /// client message id of the message it edits (`edit_of`), so that
    /// erasing the message takes the edit's text with it (its versions go
    /// from `message_versions` at the same time, §10.7): before, a sent
    /// edit's text stayed in `sent_contents` for up to 30 days after its
    /// message was deleted or disappeared. Edits kept from before this
    /// version are found by their encoding: type `0x0F`, the edited id at
    /// bytes 27…42 (§10).
    static func addGroupContentResends(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE sent_group_contents(
                digest BLOB PRIMARY KEY,
                conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                content_id BLOB NOT NULL,
                content BLOB NOT NULL,
                sealed_at INTEGER NOT NULL,
                edit_of BLOB
            ) WITHOUT ROWID;
            CREATE INDEX sent_group_contents_by_time ON sent_group_contents(sealed_at);
            CREATE INDEX sent_group_contents_by_edited ON sent_group_contents(edit_of) WHERE edit_of IS NOT NULL;
            ALTER TABLE sent_contents ADD COLUMN edit_of BLOB;
            UPDATE sent_contents SET edit_of = substr(content, 27, 16) WHERE substr(content, 1, 2) = x'010F' AND length(content) >= 44;
            CREATE INDEX sent_contents_by_edited ON sent_contents(edit_of) WHERE edit_of IS NOT NULL;
            CREATE TABLE group_content_resends(
                content_id BLOB NOT NULL,
                member_key BLOB NOT NULL,
                resent_at INTEGER NOT NULL,
                PRIMARY KEY (content_id, member_key)
            ) WITHOUT ROWID;
            """)
    }
}
