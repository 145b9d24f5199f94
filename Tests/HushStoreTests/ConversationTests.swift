import Testing
import HushStore

@Suite struct ConversationTests {
    @Test func listIsOrderedByLatestMessageWithUnreadCountsAndSummary() throws {
        let fixture = try StoreFixture()
        let ada = try fixture.conversation("ada")
        let bo = try fixture.conversation("bo")
        let empty = try fixture.conversation("empty")
        try fixture.incoming(ada, serverId: 1, body: "hello from ada", at: 100)
        try fixture.incoming(bo, serverId: 2, body: "hi from bo", at: 200)
        try fixture.incoming(bo, serverId: 3, body: "are you there?\nline two", at: 300)
        var list = try fixture.store.conversations.list()
        #expect(list.map(\.id) == [bo, ada, empty])
        #expect(list.map(\.unreadCount) == [2, 1, 0])
        #expect(list[0].summary() == "are you there? line two")
        #expect(list[2].lastMessage == nil)

        let latestAda = try fixture.incoming(ada, serverId: 4, body: "newest", at: 400)
        list = try fixture.store.conversations.list()
        #expect(list.map(\.id) == [ada, bo, empty])
        #expect(list[0].lastMessage?.id == latestAda)

        let firstOfBo = try fixture.store.messages.history(conversationId: bo)[0]
        #expect(try fixture.store.messages.markRead(upTo: firstOfBo.id, in: bo, at: 999) == 1)
        list = try fixture.store.conversations.list()
        #expect(list.first { $0.id == bo }?.unreadCount == 1)
        let history = try fixture.store.messages.history(conversationId: bo)
        #expect(history[0].status == .read && history[0].readAt == 999 && history[1].readAt == nil)
    }

    @Test func deleteConversationRemovesMessagesOutboxAndSearchEntries() throws {
        let fixture = try StoreFixture()
        let gone = try fixture.conversation("gone")
        let kept = try fixture.conversation("kept")
        try fixture.incoming(gone, serverId: 1, body: "zebra secret", at: 1)
        try fixture.outgoingPending(gone, body: "zebra queued", at: 2, requestId: "q")
        try fixture.incoming(kept, serverId: 2, body: "zebra kept", at: 3)
        try fixture.store.conversations.delete(gone)
        #expect(try fixture.store.conversations.list().map(\.id) == [kept])
        #expect(try fixture.store.messages.search("zebra").map(\.message.body) == ["zebra kept"])
        #expect(try fixture.store.outbox.item(requestId: "q") == nil)
        #expect(throws: StoreError.self) { try fixture.store.conversations.delete(gone) }
    }

    @Test func deleteOlderThanKeepsNewerAndFixesSummaries() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("old")
        for i in 1...10 { try fixture.incoming(chat, serverId: Int64(i), body: "m\(i)", at: Int64(i * 100)) }
        #expect(try fixture.store.messages.deleteMessages(olderThan: 501) == 5)
        #expect(try fixture.store.messages.history(conversationId: chat).map(\.body) == (6...10).map { "m\($0)" })
        #expect(try fixture.store.conversations.list()[0].unreadCount == 5)
        #expect(try fixture.store.messages.deleteMessages(olderThan: 10_000) == 5)
        let summary = try fixture.store.conversations.list()[0]
        #expect(summary.unreadCount == 0 && summary.lastMessage == nil)
    }

    @Test func storageUsageGrowsWithHistory() throws {
        let fixture = try StoreFixture()
        let small = try fixture.conversation("small")
        let large = try fixture.conversation("large")
        try fixture.incoming(small, serverId: 1, body: "x", at: 1)
        for i in 0..<20 { try fixture.incoming(large, serverId: Int64(10 + i), body: String(repeating: "y", count: 1000), at: 2) }
        let usage = try fixture.store.conversations.storageUsage()
        #expect(usage.map(\.conversationId) == [large, small])
        #expect(usage[0].messageCount == 20 && usage[0].bytes >= 20_000)
        #expect(usage[1].messageCount == 1 && usage[1].bytes < 1_000)
    }

    @Test func searchFindsWordsAndTreatsQuerySyntaxAsText() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("search")
        try fixture.incoming(chat, serverId: 1, body: "Meet at the café tomorrow", at: 1)
        try fixture.incoming(chat, serverId: 2, body: "the weather tomorrow is fine", at: 2)
        try fixture.incoming(chat, serverId: 3, body: "nothing here", at: 3)
        #expect(try fixture.store.messages.search("tomorrow").map(\.message.serverId) == [2, 1])
        #expect(try fixture.store.messages.search("CAFÉ tomorrow").map(\.message.serverId) == [1])
        #expect(try fixture.store.messages.search("café").first?.snippet.contains("[café]") == true)
        #expect(try fixture.store.messages.search("\"unbalanced OR NEAR(").isEmpty)
        #expect(try fixture.store.messages.search("   ").isEmpty)
    }
}
