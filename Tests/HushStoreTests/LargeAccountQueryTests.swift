import Foundation
import Testing
@testable import HushStore

/// The queries behind `hush chats` and opening a conversation, as they
/// must stay on a large account (issue 35, item 5; `make bench
/// BENCH=largeaccount`): none may walk a conversation's messages, since a
/// conversation's rows lie among all the others' and each one read is a page
/// decrypted, and the list must hold every conversation.
@Suite struct LargeAccountQueryTests {
    func plan(_ fixture: StoreFixture, _ sql: String) throws -> [String] {
        try fixture.store.database.query("EXPLAIN QUERY PLAN " + sql) { try $0.get(3, as: String.self) }
    }

    /// Marking read (what opening a conversation does) looks for the unread
    /// incoming messages, counts them for the summary and updates them: each
    /// through the partial index of unread messages, not `messages_by_position`.
    @Test func unreadMessagesAreSoughtInTheirOwnIndex() throws {
        let fixture = try StoreFixture()
        let unread = "conversation_id = 1 AND direction = 'in' AND read_at IS NULL"
        for sql in [
            "SELECT id FROM messages WHERE \(unread) ORDER BY position, id",
            "SELECT id FROM messages WHERE \(unread) AND position <= 3 AND (position < 3 OR id <= 4) ORDER BY position, id",
            "SELECT count(*) FROM messages WHERE \(unread)",
            "UPDATE messages SET read_at = 5, status = 'read' WHERE \(unread) AND position <= 3 AND (position < 3 OR id <= 4)",
        ] {
            let steps = try plan(fixture, sql)
            #expect(steps.contains { $0.contains("USING INDEX messages_unread") }, "\(sql): \(steps)")
        }
    }

    /// The resends of a conversation are found from the resends (few), not by
    /// looking every message of the conversation up among them.
    @Test func resentMessagesAreFoundFromTheResends() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("bo")
        let first = try fixture.incoming(chat, serverId: 1, body: "one", at: 1)
        let second = try fixture.incoming(chat, serverId: 2, body: "two", at: 2)
        #expect(try fixture.store.resends.markResent(messageId: second, onSession: [], at: 5))
        #expect(try fixture.store.resends.markResent(messageId: first, onSession: [], at: 6))
        #expect(try fixture.store.resends.resentClientMessageIds(conversationId: chat) == ["in-\(chat)-2", "in-\(chat)-1"])
        let steps = try plan(fixture, ResendRepository.resentInConversation.replacingOccurrences(of: "?", with: "1"))
        #expect(steps.first?.contains("SCAN TABLE message_resends") == true, "\(steps)")
    }

    /// Marking read starts the timers of exactly the messages it marks.
    @Test func markingReadStartsTheTimersOfWhatItMarksOnly() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("bo")
        func timed(_ serverId: Int64) throws -> Int64 {
            try fixture.store.messages.insert(NewMessage(conversationId: chat, serverId: serverId, clientMessageId: "timed-\(serverId)",
                                                         direction: .incoming, sender: "addr-bo", body: "goes", status: .delivered,
                                                         createdAt: serverId, expiresAfter: 60)).id
        }
        let early = try timed(1)
        try fixture.store.messages.markRead(upTo: early, in: chat, at: 1_000)
        let marked = try timed(2), later = try timed(3)
        try fixture.store.messages.markRead(upTo: marked, in: chat, at: 5_000)
        #expect(try fixture.store.messages.message(id: early)?.expiresAt == 61_000, "read before: its timer stays")
        #expect(try fixture.store.messages.message(id: marked)?.expiresAt == 65_000)
        #expect(try fixture.store.messages.message(id: later)?.expiresAt == nil, "not read yet: not started")
        #expect(try fixture.store.conversations.summary(id: chat)?.unreadCount == 1)
    }

    /// Every conversation is listed, however many there are, and one is found by its id wherever it stands in the list.
    @Test func theListHoldsEveryConversation() throws {
        let fixture = try StoreFixture()
        let ids = try fixture.store.write { store in
            try (0..<1_200).map { try store.conversations.create(title: "chat \($0)", at: 0) }
        }
        try fixture.incoming(ids[5], serverId: 1, body: "newest", at: 10)
        let list = try fixture.store.conversations.list()
        #expect(list.count == 1_200)
        #expect(list.first?.id == ids[5])
        #expect(try fixture.store.conversations.list(limit: 2).count == 2)
        let oldest = try fixture.store.conversations.summary(id: ids[1_199])
        #expect(oldest?.title == "chat 1199" && oldest?.lastMessage == nil)
        #expect(try fixture.store.conversations.summary(id: 99_999) == nil)
    }

    /// With a standing, the list holds only the conversations of contacts in
    /// it; one without a contact (a group's) counts as accepted.
    @Test func theListByStandingLeavesOutTheOthers() throws {
        let fixture = try StoreFixture()
        let accepted = try fixture.conversation("ada")
        let stranger = try fixture.store.contacts.add(name: "stranger", address: "addr-stranger", identityKey: Array(repeating: 8, count: 32),
                                                      standing: .requested, at: 1)
        let request = try fixture.store.conversations.conversation(forContact: stranger.id, title: "stranger", at: 1)
        let group = try fixture.store.conversations.create(title: "team", at: 1)
        #expect(Set(try fixture.store.conversations.list().map(\.id)) == [accepted, request, group])
        #expect(Set(try fixture.store.conversations.list(standing: .accepted).map(\.id)) == [accepted, group])
        #expect(try fixture.store.conversations.list(standing: .requested).map(\.id) == [request])
        #expect(try fixture.store.conversations.list(standing: .blocked).isEmpty)
    }
}
