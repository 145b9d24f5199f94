import Testing
import HushStore

@Suite struct OutboxTests {
    @Test func dueItemsRespectNextAttemptAndStatus() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("out")
        try fixture.outgoingPending(chat, body: "a", at: 100, requestId: "a")
        try fixture.outgoingPending(chat, body: "b", at: 200, requestId: "b")
        #expect(try fixture.store.outbox.due(at: 150).map(\.requestId) == ["a"])
        #expect(try fixture.store.outbox.due(at: 1_000).map(\.requestId) == ["a", "b"])
        let item = try #require(try fixture.store.outbox.item(requestId: "a"))
        #expect(item.payload == Array("sealed-a".utf8) && item.status == .pending && item.failCount == 0)

        try fixture.store.outbox.recordAttempt(requestId: "a", at: 1_000)
        try fixture.store.sendQueue.markFailed(requestId: "a", error: "HTTP 503", nextAttemptAt: 5_000)
        let retried = try #require(try fixture.store.outbox.item(requestId: "a"))
        #expect(retried.failCount == 1 && retried.nextAttemptAt == 5_000 && retried.lastSentAt == 1_000 && retried.lastError == "HTTP 503")
        // "a" waits out its backoff, but "b" after it in the same conversation is due: "a" goes
        // first with it, or "b" would reach the contact before it.
        #expect(try fixture.store.outbox.due(at: 4_999).map(\.requestId) == ["a", "b"])
        // Another conversation's due request does not bring "a" forward.
        try fixture.store.sendQueue.markFailed(requestId: "b", error: "HTTP 503", nextAttemptAt: 6_000)
        let other = try fixture.conversation("other")
        try fixture.outgoingPending(other, body: "c", at: 300, requestId: "c")
        #expect(try fixture.store.outbox.due(at: 4_999).map(\.requestId) == ["c"])
    }

    /// The relay answers again: what waited because it did not answer is due
    /// now; what waits out its Retry-After keeps its time (a review).
    @Test func aRelayBackMakesDueOnlyWhatWaitedForItToAnswer() throws {
        let fixture = try StoreFixture()
        try fixture.outgoingPending(try fixture.conversation("a"), body: "down", at: 100, requestId: "down")
        try fixture.outgoingPending(try fixture.conversation("b"), body: "limited", at: 100, requestId: "limited")
        try fixture.store.sendQueue.markFailed(requestId: "down", error: "the relay could not be used right now (connection refused)", nextAttemptAt: 90_000)
        try fixture.store.sendQueue.markFailed(requestId: "limited", error: "the relay is rate-limiting us; retry in 60 s", nextAttemptAt: 60_000)
        #expect(try fixture.store.outbox.makeWaitingDue(at: 1_000, failedWith: "the relay could not be used right now ") == 1)
        #expect(try fixture.store.outbox.due(at: 1_000).map(\.requestId) == ["down"])
        #expect(try fixture.store.outbox.item(requestId: "limited")?.nextAttemptAt == 60_000)
    }

    @Test func permanentFailureFailsTheMessageAndRetryRevivesIt() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("fail")
        let id = try fixture.outgoingPending(chat, body: "doomed", at: 1, requestId: "r")
        try fixture.store.sendQueue.markFailed(requestId: "r", error: "HTTP 422", nextAttemptAt: nil)
        #expect(try fixture.store.messages.message(id: id)?.status == .failed)
        #expect(try fixture.store.outbox.due(at: .max).isEmpty)
        #expect(try fixture.store.outbox.items(status: .failed).map(\.requestId) == ["r"])
        try fixture.store.sendQueue.retry(requestId: "r", at: 10)
        #expect(try fixture.store.messages.message(id: id)?.status == .pending)
        #expect(try fixture.store.outbox.due(at: 10).map(\.requestId) == ["r"])
    }

    @Test func markSentGivesTheMessageItsServerIdAndRemovesTheRequest() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("sent")
        let id = try fixture.outgoingPending(chat, body: "hello", at: 1, requestId: "r")
        #expect(try fixture.store.sendQueue.markSent(requestId: "r", serverId: 77, relayTimestamp: 5) == id)
        let message = try #require(try fixture.store.messages.message(id: id))
        #expect(message.serverId == 77 && message.status == .sent && message.position == 77)
        #expect(try fixture.store.outbox.item(requestId: "r") == nil)
        // Receipts name the client message id, within the sender's conversation
        // only; a late "delivered" does not undo "read".
        let other = try fixture.conversation("someone else")
        #expect(try !fixture.store.messages.advanceOutgoingStatus(clientMessageId: message.clientMessageId, to: .read, at: 8, conversationId: other))
        #expect(try fixture.store.messages.advanceOutgoingStatus(clientMessageId: message.clientMessageId, to: .read, at: 9, conversationId: chat))
        #expect(try !fixture.store.messages.advanceOutgoingStatus(clientMessageId: message.clientMessageId, to: .delivered, at: 10, conversationId: chat))
        let read = try #require(try fixture.store.messages.message(id: id))
        #expect(read.status == .read && read.readAt == 9 && read.deliveredAt == 9)
    }

    @Test func deletingARequestDropsItsUnsentMessage() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("del")
        let id = try fixture.outgoingPending(chat, body: "never mind", at: 1, requestId: "r")
        try fixture.store.sendQueue.delete(requestId: "r")
        #expect(try fixture.store.messages.message(id: id) == nil)
        #expect(try fixture.store.conversations.list()[0].lastMessage == nil)
    }

    @Test func aFailedBatchWritesNothing() throws {
        struct Boom: Error {}
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("batch")
        #expect(throws: Boom.self) {
            try fixture.store.write { store in
                try fixture.outgoingPending(chat, body: "x", at: 1, requestId: "x")
                throw Boom()
            }
        }
        #expect(try fixture.store.outbox.item(requestId: "x") == nil)
        #expect(try fixture.store.messages.history(conversationId: chat).isEmpty)
    }
}
