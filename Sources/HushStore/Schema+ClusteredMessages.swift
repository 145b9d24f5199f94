import HushDatabase

extension Schema {
    /// Version 7: messages stored in display order per conversation.
    ///
    /// A `WITHOUT ROWID` table keyed by (conversation, position, id), so a
    /// history page of 50 is one or two adjacent B-tree leaves instead of 50
    /// rows scattered over the file (the rowid table interleaved every
    /// conversation in arrival order). With SQLCipher each page read from
    /// disk is decrypted and HMAC-checked, so pages per query is the cost.
    /// The key also serves lookups by (conversation, server id): for an
    /// acknowledged message the position *is* its server id (see
    /// `MessagePosition`), so the separate server-id index goes.
    ///
    /// `id` stays the stable message id (assigned by `MessageRepository`,
    /// max + 1 as a rowid would be) with its own unique index; FTS4 reads
    /// bodies through a view whose `rowid` column is that id, since an
    /// external-content FTS4 table looks rows up by rowid. The outbox is
    /// rebuilt alongside so that its foreign key follows the new table.
    static func clusterMessagesByConversation(_ db: Database) throws {
        try db.execute("""
            DROP TRIGGER messages_fts_before_update;
            DROP TRIGGER messages_fts_before_delete;
            DROP TRIGGER messages_fts_after_update;
            DROP TABLE messages_fts;
            ALTER TABLE outbox RENAME TO outbox_old;
            ALTER TABLE messages RENAME TO messages_old;

            CREATE TABLE messages(
                conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                -- The display order as one integer (see MessagePosition).
                position INTEGER NOT NULL,
                id INTEGER NOT NULL,
                server_id INTEGER,
                client_message_id TEXT NOT NULL,
                direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
                sender TEXT NOT NULL,
                body TEXT NOT NULL,
                content_type TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'delivered', 'read', 'failed')),
                created_at INTEGER NOT NULL,
                relay_timestamp INTEGER,
                delivered_at INTEGER,
                read_at INTEGER,
                PRIMARY KEY (conversation_id, position, id)
            ) WITHOUT ROWID;
            CREATE UNIQUE INDEX messages_by_id ON messages(id);
            CREATE UNIQUE INDEX messages_by_client_id ON messages(client_message_id);
            INSERT INTO messages(conversation_id, position, id, server_id, client_message_id, direction, sender, body,
                                 content_type, status, created_at, relay_timestamp, delivered_at, read_at)
                SELECT conversation_id, position, id, server_id, client_message_id, direction, sender, body,
                       content_type, status, created_at, relay_timestamp, delivered_at, read_at
                FROM messages_old;

            CREATE TABLE outbox(
                request_id TEXT PRIMARY KEY,
                message_id INTEGER REFERENCES messages(id) ON DELETE CASCADE,
                conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                payload BLOB NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('draft', 'pending', 'sent', 'failed')),
                fail_count INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL,
                last_sent_at INTEGER,
                last_error TEXT,
                created_at INTEGER NOT NULL
            );
            INSERT INTO outbox SELECT request_id, message_id, conversation_id, payload, status, fail_count,
                                      next_attempt_at, last_sent_at, last_error, created_at FROM outbox_old;
            DROP TABLE outbox_old;
            DROP TABLE messages_old;
            CREATE INDEX outbox_by_status ON outbox(status, next_attempt_at);
            CREATE INDEX outbox_by_message ON outbox(message_id);

            CREATE VIEW messages_fts_content(rowid, body) AS SELECT id, body FROM messages;
            CREATE VIRTUAL TABLE messages_fts USING fts4(content="messages_fts_content", body, tokenize=unicode61);
            INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
            CREATE TRIGGER messages_fts_before_update BEFORE UPDATE OF body ON messages BEGIN
                DELETE FROM messages_fts WHERE docid = OLD.id;
            END;
            CREATE TRIGGER messages_fts_before_delete BEFORE DELETE ON messages BEGIN
                DELETE FROM messages_fts WHERE docid = OLD.id;
            END;
            CREATE TRIGGER messages_fts_after_update AFTER UPDATE OF body ON messages BEGIN
                INSERT INTO messages_fts(docid, body) VALUES (NEW.id, NEW.body);
            END;
            """)
    }
}
