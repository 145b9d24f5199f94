import Foundation
import Testing
import HushCrypto
import HushDatabase
import HushStore
import HushTesting

@Suite struct MigrationTests {
    /// Writes what a user of schema `version` would have, with raw SQL as
    /// that version's code did.
    func seed(_ db: Database, version: Int) throws {
        guard version >= 1 else { return }
        try db.execute("INSERT INTO contacts(id, name, address, identity_key, created_at) VALUES (1, 'old', 'addr', x'01', 1)")
        try db.execute("INSERT INTO conversations(id, contact_id, title, created_at) VALUES (1, 1, 'old', 1)")
        try db.execute("""
            INSERT INTO messages(conversation_id, server_id, client_message_id, direction, sender, body, content_type, status, created_at, position)
            VALUES (1, 5, 'c1', 'in', 'old', 'written before migrating aardvark', 'text/plain', 'delivered', 10, 5)
            """)
        if version >= 2 {
            try db.execute("INSERT INTO ratchet_sessions(contact_id, state, updated_at) VALUES (1, x'0a0b', 1)")
        }
        if version >= 6 {
            // From version 6 the insert code, not a trigger, keeps the search
            // index and the conversation summary: do what that code did.
            try db.execute("INSERT INTO messages_fts(docid, body) SELECT id, body FROM messages")
            try db.execute("""
                UPDATE conversations SET last_message_id = (SELECT max(id) FROM messages), last_activity_at = 10,
                    last_position = 5, unread_count = 1 WHERE id = 1
                """)
        }
        if version >= 8 {
            try db.execute("INSERT INTO message_resends(message_id, resent_at) VALUES (1, 11)")
        }
        if version >= 17 {
            // An edit kept for resending (version 0x01, type 0x0F, its id, sent at, the
            // edited message's id, the new text), and a delivery receipt beside it.
            try db.execute("INSERT INTO sent_contents(digest, contact_id, content, sealed_at) VALUES (x'e1', 1, ?, 1), (x'e2', 1, ?, 1)",
                           [Self.editContent, [0x01, 0x02] + [UInt8](repeating: 7, count: 24) + [0x00, 0x01] + [UInt8](repeating: 9, count: 16)])
        }
        if version >= 28 {
            // From version 28 the code that keeps an edit records the message it edits.
            try db.execute("UPDATE sent_contents SET edit_of = ? WHERE digest = x'e1'", [[UInt8](repeating: 0x5A, count: 16)])
        }
    }

    /// An encoded edit of the message whose client id is 16 × 0x5A.
    static let editContent: [UInt8] = [0x01, 0x0F] + [UInt8](repeating: 1, count: 16) + [UInt8](repeating: 0, count: 8)
        + [UInt8](repeating: 0x5A, count: 16) + [0x00, 0x03] + Array("new".utf8)

    @Test(arguments: 0..<Schema.latestVersion)
    func migratesFromEveryEarlierVersionKeepingData(version: Int) throws {
        let directory = try TemporaryDirectory(label: "migrate")
        defer { withExtendedLifetime(directory) {} }
        let path = directory.path("messages.db")
        let key = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "migrate"))
        do {
            let db = try Database(path: path, key: key)
            try Schema.migrator.migrate(db, upTo: version)
            #expect(try db.schemaVersion() == version)
            try seed(db, version: version)
        }
        let store = try MessageStore(path: path, key: key)
        #expect(try store.schemaVersion() == Schema.latestVersion)
        if version >= 1 {
            let history = try store.messages.history(conversationId: 1)
            #expect(history.map(\.body) == ["written before migrating aardvark"])
            // Messages from before the search index existed are searchable.
            #expect(try store.messages.search("aardvark").map(\.message.id) == history.map(\.id))
            #expect(try store.conversations.list().first?.unreadCount == 1)
            // The unread message written before version 27 is in its index: found, then marked read.
            #expect(try store.messages.unreadIncoming(conversationId: 1).map(\.id) == history.map(\.id))
            #expect(try store.messages.markRead(upTo: history[0].id, in: 1, at: 30) == 1)
            #expect(try store.messages.unreadIncoming(conversationId: 1).isEmpty)
            #expect(try store.conversations.list().first?.unreadCount == 0)
        }
        if version >= 2 {
            #expect(try store.sessions.load(contactId: 1) == SecureBytes(copying: [0x0a, 0x0b]))
        }
        if version >= 8 {
            // A resend marked before marks were per member and per session
            // still counts for a one-to-one message with no session named;
            // each session of the contact, and each group member on each of
            // its sessions, may have it once.
            let session = [UInt8](repeating: 0x44, count: 32), later = [UInt8](repeating: 0x45, count: 32)
            #expect(try store.resends.resentClientMessageIds(conversationId: 1) == ["c1"])
            #expect(try !store.resends.markResent(messageId: 1, onSession: [], at: 12))
            #expect(try store.resends.markResent(messageId: 1, onSession: session, at: 12))
            #expect(try !store.resends.markResent(messageId: 1, onSession: session, at: 12))
            #expect(try store.resends.markResent(messageId: 1, onSession: later, at: 12))
            #expect(try store.resends.markResent(messageId: 1, toMember: [0x02], onSession: session, at: 12))
            #expect(try !store.resends.markResent(messageId: 1, toMember: [0x02], onSession: session, at: 13))
            #expect(try store.resends.markResent(messageId: 1, toMember: [0x03], onSession: session, at: 13))
            #expect(try store.resends.resentClientMessageIds(conversationId: 1) == ["c1"])
        }
        if version >= 17 {
            // Edits kept from before version 28 name the message they edit, so its erasure finds them.
            let editOf = try store.database.query("SELECT edit_of FROM sent_contents ORDER BY digest") { try $0.get(0, as: [UInt8]?.self) }
            #expect(editOf == [[UInt8](repeating: 0x5A, count: 16), nil])
            // A content kept from before version 39 goes again once per session of its contact.
            let session = [UInt8](repeating: 0x44, count: 32)
            #expect(try store.resends.takeContentToResend(forEnvelope: [0xe1], contactId: 1, onSession: session, at: 14) == Self.editContent)
            #expect(try store.resends.takeContentToResend(forEnvelope: [0xe1], contactId: 1, onSession: session, at: 14) == nil)
        }
        // The latest schema is fully usable.
        let chat = try store.conversations.create(title: "new", at: 2)
        try store.messages.insert(NewMessage(conversationId: chat, serverId: 9, clientMessageId: "n", direction: .incoming,
                                             sender: "x", body: "fresh zebra", status: .delivered, createdAt: 20))
        #expect(try store.messages.search("zebra").count == 1)
        try store.settings.advanceSyncCursor(to: 9)
        #expect(try store.doctor().healthy)
    }

    /// Every index on `messages` costs each insert a random B-tree write (and
    /// on SQLCipher, pages decrypted and encrypted again): the schema keeps
    /// only those a query uses. The history page must still be an index seek.
    /// `messages_by_expiry` is partial (only messages whose timer runs): an
    /// insert, whose `expires_at` is always NULL, does not write it, and the
    /// expiry sweep (after every sync, every few seconds in a live view) seeks it.
    /// `messages_unread` is partial too (unread incoming messages only): opening
    /// a conversation seeks it (LargeAccountQueryTests).
    @Test func messagesCarryOnlyTheIndexesQueriesUse() throws {
        let fixture = try StoreFixture()
        let indexes = try fixture.store.database.query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages' ORDER BY name") { try $0.get(0, as: String.self) }
        #expect(indexes == ["messages_by_expiry", "messages_by_position", "messages_unread", "sqlite_autoindex_messages_1"])
        let plan = try fixture.store.database.query(
            "EXPLAIN QUERY PLAN SELECT id FROM messages WHERE conversation_id = 1 ORDER BY position DESC, id DESC LIMIT 50") {
            try $0.get(3, as: String.self)
        }
        #expect(plan.contains { $0.contains("messages_by_position") }, "\(plan)")
        // The expiry sweep seeks the partial index instead of scanning every message.
        let sweep = try fixture.store.database.query(
            "EXPLAIN QUERY PLAN SELECT id FROM messages WHERE expires_at IS NOT NULL AND expires_at <= 5 AND deleted_at IS NULL") {
            try $0.get(3, as: String.self)
        }
        #expect(sweep.contains { $0.contains("USING INDEX messages_by_expiry (expires_at<?)") }, "\(sweep)")
    }

    @Test func aNewerSchemaIsRefused() throws {
        let fixture = try StoreFixture()
        try fixture.store.database.execute("PRAGMA user_version = \(Schema.latestVersion + 1)")
        #expect { _ = try MessageStore(path: fixture.path, key: fixture.key) } throws: { error in
            (error as? DatabaseError)?.kind == .newerSchema(found: Schema.latestVersion + 1, supported: Schema.latestVersion)
        }
    }
}
