import Testing
import HushStore

@Suite struct HistoryTests {
    @Test func acknowledgedByServerIdThenPendingByCreatedAtAlwaysLast() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("ada")
        // A pending message created before later acknowledged ones still shows last.
        try fixture.outgoingPending(chat, body: "pending early", at: 100, requestId: "r1")
        try fixture.incoming(chat, serverId: 20, body: "second", at: 300)
        try fixture.incoming(chat, serverId: 10, body: "first", at: 400)
        try fixture.outgoingPending(chat, body: "pending late", at: 50_000, requestId: "r2")
        let bodies = try fixture.store.messages.history(conversationId: chat).map(\.body)
        #expect(bodies == ["first", "second", "pending early", "pending late"])

        // Acknowledging a pending message moves it among the acknowledged ones.
        try fixture.store.sendQueue.markSent(requestId: "r1", serverId: 15, relayTimestamp: 500)
        let after = try fixture.store.messages.history(conversationId: chat)
        #expect(after.map(\.body) == ["first", "pending early", "second", "pending late"])
        #expect(after[1].status == .sent && after[1].serverId == 15 && after[1].relayTimestamp == 500)
    }

    @Test func keysetPagesWalkTheWholeHistoryWithoutGapsOrRepeats() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("bo")
        let other = try fixture.conversation("cy")
        for i in 1...23 { try fixture.incoming(chat, serverId: Int64(i * 2), body: "m\(i)", at: Int64(i)) }
        for i in 1...5 { try fixture.incoming(other, serverId: Int64(i * 2 + 1), body: "other\(i)", at: Int64(i)) }
        try fixture.outgoingPending(chat, body: "p1", at: 1, requestId: "a")
        try fixture.outgoingPending(chat, body: "p2", at: 1, requestId: "b")   // same createdAt: local id breaks the tie

        var seen: [String] = []
        var page = try fixture.store.messages.history(conversationId: chat, limit: 5)
        while !page.isEmpty {
            seen.insert(contentsOf: page.map(\.body), at: 0)
            page = try fixture.store.messages.history(conversationId: chat, before: page[0].id, limit: 5)
        }
        #expect(seen == (1...23).map { "m\($0)" } + ["p1", "p2"])

        var forward: [String] = []
        var next = try fixture.store.messages.history(conversationId: chat, after: try #require(
            fixture.store.messages.history(conversationId: chat, before: nil, limit: 25).first).id, limit: 4)
        forward.append("m1")
        while !next.isEmpty {
            forward += next.map(\.body)
            next = try fixture.store.messages.history(conversationId: chat, after: next.last!.id, limit: 4)
        }
        #expect(forward == seen)
    }

    @Test func aMessageOfAnotherConversationIsNotAnAnchor() throws {
        let fixture = try StoreFixture()
        let a = try fixture.conversation("a")
        let b = try fixture.conversation("b")
        let id = try fixture.incoming(b, serverId: 1, body: "x", at: 1)
        #expect(throws: StoreError.notFound("message \(id)")) {
            _ = try fixture.store.messages.history(conversationId: a, before: id)
        }
    }

    @Test func duplicatesAreRecognisedByClientMessageId() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("dup")
        let message = NewMessage(conversationId: chat, serverId: 5, clientMessageId: "same", direction: .incoming,
                                 sender: "peer", body: "once", status: .delivered, createdAt: 1)
        let first = try fixture.store.messages.insert(message)
        let second = try fixture.store.messages.insert(message)
        #expect(second == .duplicate(existingId: first.id))
        #expect(try fixture.store.messages.history(conversationId: chat).count == 1)
        #expect(try fixture.store.conversations.list()[0].unreadCount == 1)
    }

    @Test func serverIdsOutsideTheOrderingRangeAreRejected() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("range")
        #expect(throws: StoreError.self) { try fixture.incoming(chat, serverId: -1, body: "x", at: 1) }
        #expect(throws: StoreError.self) { try fixture.incoming(chat, serverId: MessagePosition.pendingBase, body: "x", at: 1) }
    }

    /// A local notice (no envelope numbered it) stands right after what the
    /// conversation held when it was written, and before what the relay
    /// numbers later and any pending message, whatever the clocks say (its
    /// time here is before both messages).
    @Test func aLocalNoticeStandsWhereItWasWritten() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("notice")
        _ = try fixture.incoming(chat, serverId: 1_000 << 10, body: "before", at: 1_000)
        var notice = NewMessage(conversationId: chat, clientMessageId: "notice", direction: .incoming, sender: "x", body: "notice",
                                status: .delivered, createdAt: 10)
        notice.isLocalNotice = true
        try fixture.store.messages.insert(notice)
        _ = try fixture.incoming(chat, serverId: (1_000 << 10) + 1, body: "after", at: 1_000)
        try fixture.store.messages.insert(NewMessage(conversationId: chat, clientMessageId: "pending", direction: .outgoing, sender: "me",
                                                     body: "pending", status: .pending, createdAt: 5))
        let shown = try fixture.store.messages.history(conversationId: chat, limit: 10).map(\.body)
        #expect(shown == ["before", "notice", "after", "pending"], "oldest first: \(shown)")
        #expect(MessagePosition.local(after: nil) == 0 && MessagePosition.local(after: MessagePosition.pendingBase - 1) < MessagePosition.pendingBase)
    }
}
