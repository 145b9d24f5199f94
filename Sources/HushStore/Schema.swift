import HushDatabase

/// The schema of `messages.db`, as ordered migrations (`PRAGMA user_version`).
/// Never edit a released migration: add the next one. Times are milliseconds
/// since 1970 (UTC) in INTEGER columns; secrets (session state, prekeys,
/// skipped message keys) are BLOBs the protocol layer encodes.
public enum Schema {
    public static let migrator: Migrator = {
        var migrator = Migrator()
        migrator.register(version: 1, name: "contacts, conversations, messages, outbox", createCore)
        migrator.register(version: 2, name: "ratchet sessions, prekeys, skipped message keys", createProtocolState)
        migrator.register(version: 3, name: "full-text search over message bodies", createFullTextSearch)
        migrator.register(version: 4, name: "settings, relay sync cursor, quarantine", createSettingsAndQuarantine)
        migrator.register(version: 5, name: "contacts' delivery credentials", addDeliveryCredentials)
        migrator.register(version: 6, name: "search index and summaries kept per insert, not by triggers; list-order index", dropInsertTriggers)
        migrator.register(version: 7, name: "which delivery credential each contact was given", addCredentialHandOver)
        migrator.register(version: 8, name: "digests of sent envelopes and resends, for decryption errors", addResends)
        migrator.register(version: 9, name: "envelopes deferred for a local cause, kept at the relay", addDeferredEnvelopes)
        migrator.register(version: 10, name: "message requests: contacts accepted, requested or blocked", addContactStanding)
        migrator.register(version: 11, name: "attachments: pointers, transfer state", addAttachments)
        migrator.register(version: 12, name: "attachments: the relay's id of a resumable upload", addAttachmentUploadIds)
        migrator.register(version: 13, name: "attachments: a lease on an upload in progress", addAttachmentUploadLeases)
        migrator.register(version: 14, name: "attachments: an upload's own retry schedule", addAttachmentUploadSchedule)
        migrator.register(version: 15, name: "groups: states, sender chains, fan-out recipients, receipts per member", addGroups)
        migrator.register(version: 16, name: "drop the unused index of messages by relay id", dropUnusedServerIdIndex)
        migrator.register(version: 17, name: "contents of other sent envelopes, for decryption errors", addContentResends)
        migrator.register(version: 18, name: "group invitations waiting for their sender's request to be accepted", addGroupInvitations)
        migrator.register(version: 19, name: "profile names: the one each contact chose, ours as last sent to each", addProfileNames)
        migrator.register(version: 20, name: "delivery receipts owed for stored messages, sealed once per receive pass", addOwedReceipts)
        migrator.register(version: 21, name: "replies' quoted message; reactions, one per reactor per message", addRepliesAndReactions)
        migrator.register(version: 22, name: "edits: the versions of each edited message, the time of the one shown", addEdits)
        migrator.register(version: 23, name: "the durable event log and its subscribers' cursors", addEventLog)
        migrator.register(version: 24, name: "idempotency keys of sends", addIdempotencyKeys)
        migrator.register(version: 25, name: "deleted and disappearing messages: tombstones, timers, early deletions", addErasure)
        migrator.register(version: 26, name: "a group message resent once per member, not once in all", addResendsPerMember)
        migrator.register(version: 27, name: "the unread incoming messages of each conversation, indexed apart", addUnreadIndex)
        migrator.register(version: 28, name: "group contents outside history, resent once per member; an edit's text goes with its message", addGroupContentResends)
        migrator.register(version: 29, name: "the account's signed device lists", addDeviceLists)
        migrator.register(version: 30, name: "large groups: the kind of each group, every member's derived chain", addLargeGroups)
        migrator.register(version: 31, name: "sessions with contacts' devices; the device list held of each contact", addContactDeviceLists)
        migrator.register(version: 32, name: "sessions between the account's own devices, with their skipped keys", addOwnDeviceSessions)
        migrator.register(version: 33, name: "when each contact was last changed, for the account's other devices", addContactChangeTimes)
        migrator.register(version: 34, name: "small groups' rekeys asked for after a member revoked a device", addGroupRekeyRequests)
        migrator.register(version: 35, name: "the device each contact's sender chain came from", addChainDevices)
        migrator.register(version: 36, name: "envelope keys of groups this account left, to drop what was sealed before", addFormerGroupEnvelopeKeys)
        migrator.register(version: 37, name: "the outbox indexed by conversation, for the order of each pass", addOutboxByConversation)
        migrator.register(version: 38, name: "the account's recovery key that replaced the one a revoked device holds", addAccountRecoveryKey)
        migrator.register(version: 39, name: "a resend after a decryption error once per session of the peer, not once in all", addResendsPerSession)
        migrator.register(version: 40, name: "what a device seals to another of its own devices, sent again when that one cannot open it", addOwnDeviceResends)
        migrator.register(version: 41, name: "a removed member's chains closed at the removal, not forgotten", addClosedMemberChains)
        return migrator
    }()

    public static var latestVersion: Int { migrator.latestVersion }

    static func createCore(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE contacts(
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                address TEXT NOT NULL,
                identity_key BLOB NOT NULL,
                verification TEXT NOT NULL DEFAULT 'unverified'
                    CHECK (verification IN ('verified', 'unverified', 'changed')),
                pending_identity_key BLOB,
                created_at INTEGER NOT NULL
            );
            CREATE TABLE conversations(
                id INTEGER PRIMARY KEY,
                contact_id INTEGER UNIQUE REFERENCES contacts(id) ON DELETE CASCADE,
                title TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                -- Denormalised summary kept by MessageRepository (by the
                -- trigger below until version 6), so the conversation list
                -- reads one row per conversation instead of scanning history.
                last_message_id INTEGER,
                last_position INTEGER,
                last_activity_at INTEGER,
                unread_count INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX conversations_by_activity ON conversations(last_activity_at DESC, id DESC);
            CREATE TABLE messages(
                id INTEGER PRIMARY KEY,
                conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
                server_id INTEGER,
                client_message_id TEXT NOT NULL UNIQUE,
                direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
                sender TEXT NOT NULL,
                body TEXT NOT NULL,
                content_type TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'delivered', 'read', 'failed')),
                created_at INTEGER NOT NULL,
                relay_timestamp INTEGER,
                delivered_at INTEGER,
                read_at INTEGER,
                -- The display order as one integer (see MessagePosition).
                position INTEGER NOT NULL
            );
            CREATE INDEX messages_by_position ON messages(conversation_id, position, id);
            CREATE INDEX messages_by_server_id ON messages(conversation_id, server_id);
            CREATE TRIGGER messages_summary_after_insert AFTER INSERT ON messages BEGIN
                UPDATE conversations SET
                    last_message_id = CASE WHEN last_position IS NULL OR NEW.position >= last_position
                                           THEN NEW.id ELSE last_message_id END,
                    last_activity_at = CASE WHEN last_position IS NULL OR NEW.position >= last_position
                                            THEN NEW.created_at ELSE last_activity_at END,
                    last_position = max(coalesce(last_position, NEW.position), NEW.position),
                    unread_count = unread_count + (NEW.direction = 'in' AND NEW.read_at IS NULL)
                WHERE id = NEW.conversation_id;
            END;
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
            CREATE INDEX outbox_by_status ON outbox(status, next_attempt_at);
            CREATE INDEX outbox_by_message ON outbox(message_id);
            """)
    }

    static func createProtocolState(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE ratchet_sessions(
                contact_id INTEGER PRIMARY KEY REFERENCES contacts(id) ON DELETE CASCADE,
                state BLOB NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE TABLE prekeys(
                kind TEXT NOT NULL,
                key_id INTEGER NOT NULL,
                private_key BLOB NOT NULL,
                public_key BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                used_at INTEGER,
                PRIMARY KEY (kind, key_id)
            );
            CREATE TABLE skipped_message_keys(
                id INTEGER PRIMARY KEY,
                contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
                ratchet_key BLOB NOT NULL,
                counter INTEGER NOT NULL,
                message_key BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                UNIQUE (contact_id, ratchet_key, counter)
            );
            """)
    }

    static func createFullTextSearch(_ db: Database) throws {
        // FTS4 (SQLCipher 3.4.1 has no FTS5) over the bodies, as an
        // external-content table: the text is stored once, in messages.
        try db.execute("""
            CREATE VIRTUAL TABLE messages_fts USING fts4(content="messages", body, tokenize=unicode61);
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
            CREATE TRIGGER messages_fts_after_insert AFTER INSERT ON messages BEGIN
                INSERT INTO messages_fts(docid, body) VALUES (NEW.id, NEW.body);
            END;
            """)
    }

    static func createSettingsAndQuarantine(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE settings(
                name TEXT PRIMARY KEY,
                value TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE quarantined_envelopes(
                id INTEGER PRIMARY KEY,
                server_id INTEGER,
                envelope BLOB NOT NULL,
                reason TEXT NOT NULL,
                received_at INTEGER NOT NULL
            );
            """)
    }
}
