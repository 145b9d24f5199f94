import HushStore
import Testing
@testable import HushMessenger

/// The durable event log from the messenger's side (issue 31, item 4):
/// which events are logged, in the transaction of their change, with the
/// seq the published event carries; idempotent sends.
@Suite struct MessengerEventLogTests {
    @Test func aStoredChangeIsLoggedWithTheSeqItsEventCarriesAndNoText() async throws {
        let (alice, bob) = try await InMemoryRelay().acquaintedPair()
        _ = try await bob.messenger.sync()
        let before = try await bob.messenger.latestEventSeq()
        let stream = bob.messenger.eventRecords
        try await alice.messenger.send(text: "a text the log never holds", to: "bob")
        _ = try await bob.messenger.sync()

        let logged = try await bob.messenger.loggedEvents(after: before, limit: 100)
        let received = logged.filter { $0.entry.kind == .received }
        let message = try #require(try await bob.messenger.history(with: "alice").last)
        #expect(received.map(\.entry.messageId) == [message.id])
        #expect(received.map(\.entry.conversationId) == [message.conversationId])
        #expect(!logged.contains { $0.entry.detail?.contains("text") == true })

        var published: MessengerEventRecord?
        for await record in stream {
            if case .received = record.event { published = record; break }
        }
        #expect(published?.seq == received.first?.seq)
        #expect(published?.event.logEntry == received.first?.entry)

        // Alice's side: the relay took it, then Bob's receipt said it arrived.
        _ = try await alice.messenger.sync()
        let statuses = try await alice.messenger.loggedEvents(after: 0, limit: 100)
            .filter { $0.entry.kind == .statusChanged }.compactMap(\.entry.detail)
        #expect(statuses.contains("sent"))
        #expect(statuses.contains("delivered"))
    }

    @Test func liveOnlyEventsAreNotLogged() {
        #expect(MessengerEvent.connection(online: true).logEntry == nil)
        #expect(MessengerEvent.missed(count: 3).logEntry == nil)
        #expect(MessengerEvent.syncFailed(LiveSyncFailure(StoreError.notFound("x"))).logEntry == nil)
        #expect(MessengerEvent.typing(contact: "c", active: false, contactID: 4).logEntry
            == EventEntry(.typing, contactId: 4, detail: EventEntry.typingIdle))
        #expect(MessengerEvent.groupChanged(group: "g", conversationID: 9).logEntry == EventEntry(.groupChanged, conversationId: 9))
        #expect(MessengerEvent.quarantined(reason: "why", senderAsked: false).logEntry == EventEntry(.quarantined, detail: "why"))
        #expect(MessengerEvent.quarantined(reason: "why", senderAsked: true).logEntry == EventEntry(.awaitingResend, detail: "why"))
    }

    @Test func aReceiveThatRollsBackLogsNothing() async throws {
        let (alice, bob) = try await InMemoryRelay().acquaintedPair()
        _ = try await bob.messenger.sync()
        let before = try await bob.messenger.latestEventSeq()
        try await alice.messenger.send(text: "stored only the second time", to: "bob")

        try await bob.messenger.failCursorWrites(true)
        await #expect(throws: (any Error).self) { _ = try await bob.messenger.sync() }
        #expect(try await bob.messenger.latestEventSeq() == before)
        try await bob.messenger.failCursorWrites(false)
        _ = try await bob.messenger.sync()

        let logged = try await bob.messenger.loggedEvents(after: before, limit: 100)
        #expect(logged.map(\.entry.kind) == [.received])
        // The rolled-back attempt left no hole a subscriber would see.
        #expect(logged.map(\.seq) == [before + 1])
    }

    @Test func aSecondSendWithTheSameIdempotencyKeySendsNothing() async throws {
        let relay = InMemoryRelay()
        let (alice, _) = try await relay.acquaintedPair()
        let deposits = relay.state.withLock { $0.depositCalls }
        let first = try await alice.messenger.sendReportingDelivery(text: "only once", to: "bob", idempotencyKey: "retry-1")
        let second = try await alice.messenger.sendReportingDelivery(text: "only once", to: "bob", idempotencyKey: "retry-1")
        #expect(second.message.id == first.message.id)
        #expect(relay.state.withLock { $0.depositCalls } == deposits + 1)
        #expect(try await alice.messenger.history(with: "bob").filter { $0.body == "only once" }.count == 1)
        // Another key is another message.
        let third = try await alice.messenger.sendReportingDelivery(text: "only once", to: "bob", idempotencyKey: "retry-2")
        #expect(third.message.id != first.message.id)
        for key in ["", String(repeating: "k", count: 129)] {
            await #expect(throws: MessengerError.invalidIdempotencyKey(limit: 128)) {
                _ = try await alice.messenger.sendReportingDelivery(text: "refused", to: "bob", idempotencyKey: key)
            }
        }
        #expect(try await alice.messenger.history(with: "bob").filter { $0.body == "refused" }.isEmpty)
    }
}
