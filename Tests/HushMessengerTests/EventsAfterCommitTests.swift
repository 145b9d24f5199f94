import Foundation
import Synchronization
import Testing
@testable import HushMessenger
import HushStore

extension Messenger {
    /// Makes every later write of the sync cursor fail inside its transaction
    /// (a fault of our own database, as a full disk would be), or stops that.
    func failCursorWrites(_ fail: Bool) throws {
        try store.database.execute(fail
            ? """
              CREATE TEMP TRIGGER fail_cursor BEFORE INSERT ON main.settings WHEN NEW.name = '\(SettingsRepository.Name.syncCursor)'
              BEGIN SELECT RAISE(ABORT, 'injected fault'); END
              """
            : "DROP TRIGGER temp.fail_cursor")
    }
}

/// Events tell of what is stored: they are published after the commit, to
/// every subscriber (issue 29, item 5).
@Suite struct EventsAfterCommitTests {
    /// The events on `stream` up to and including the first that `last` matches.
    private static func events(on stream: AsyncStream<MessengerEventRecord>, through last: (MessengerEvent) -> Bool) async -> [MessengerEvent] {
        var seen: [MessengerEvent] = []
        for await record in stream {
            seen.append(record.event)
            if last(record.event) { break }
        }
        return seen
    }

    private static func receivedBodies(_ events: [MessengerEvent]) -> [String] {
        // What arrived (a message written here is told too, as outgoing).
        events.compactMap { if case let .received(message, _) = $0, message.direction == .incoming { message.body } else { nil } }
    }

    @Test func aReceiveThatRollsBackTellsNoSubscriber() async throws {
        let (alice, bob) = try await InMemoryRelay().acquaintedPair()
        // Bob's mailbox holds nothing else: the next envelope is this text.
        _ = try await bob.messenger.sync()
        let listener = bob.messenger.eventRecords, chat = bob.messenger.eventRecords
        try await alice.messenger.send(text: "stored only the second time", to: "bob")

        // The message is decrypted and stored, then the transaction fails at
        // the cursor and rolls back: nothing was stored, nothing may be told.
        try await bob.messenger.failCursorWrites(true)
        await #expect(throws: (any Error).self) { _ = try await bob.messenger.sync() }
        try await bob.messenger.failCursorWrites(false)
        _ = try await bob.messenger.sync()
        // A later event marks the end of what the two syncs published.
        try await bob.messenger.send(text: "marker", to: "alice")

        for stream in [listener, chat] {
            let seen = await Self.events(on: stream) { if case .statusChanged = $0 { true } else { false } }
            #expect(Self.receivedBodies(seen) == ["stored only the second time"], "\(seen)")
        }
        #expect(try await bob.messenger.history(with: "alice").filter { $0.body == "stored only the second time" }.count == 1)
    }

    @Test func everySubscriberGetsEveryEventAndOneThatFallsBehindIsToldWhatItMissed() async {
        let hub = EventHub<MessengerEvent>(bufferLimit: 4) { .missed(count: $0) }
        let slow = hub.subscribe(), other = hub.subscribe()
        #expect(hub.subscriberCount == 2)
        for index in 0..<10 { hub.publish(.typing(contact: "c\(index)", active: true, contactID: Int64(index))) }
        var slowEvents = slow.makeAsyncIterator(), otherEvents = other.makeAsyncIterator()
        var received: [MessengerEvent] = [], otherReceived: [MessengerEvent] = []
        for _ in 0..<4 {
            if let event = await slowEvents.next() { received.append(event) }
            if let event = await otherEvents.next() { otherReceived.append(event) }
        }
        // Room again: the next event comes after a count of what was dropped.
        hub.publish(.connection(online: true))
        for _ in 0..<2 { if let event = await slowEvents.next() { received.append(event) } }
        let first = (0..<4).map { MessengerEvent.typing(contact: "c\($0)", active: true, contactID: Int64($0)) }
        #expect(received == first + [.missed(count: 6), .connection(online: true)])
        #expect(otherReceived == first)
    }

    /// A subscriber's task cancelled while another thread publishes: the
    /// cancellation runs the stream's termination (which removes the
    /// subscription) under the task's status lock, and a yield to that task
    /// takes the same lock. Publishing used to yield under the hub's lock,
    /// which the termination takes too: the two threads deadlocked (`hush
    /// listen --timeout` never ended, about one stop in 70 under load). The
    /// cancel and the publishing run on threads of their own, so a deadlock
    /// here is a failure after 10 s, not a hung test run.
    @Test func cancellingASubscriberWhileEventsArePublishedNeverDeadlocks() async throws {
        let hub = EventHub<MessengerEvent> { .missed(count: $0) }
        let publishing = PublishingFlag()
        let publisher = Thread { while publishing.on.load(ordering: .relaxed) { hub.publish(.connection(online: true)) } }
        publisher.start()
        defer { publishing.on.store(false, ordering: .relaxed) }
        for round in 0..<2_000 {
            let events = hub.subscribe()
            let reader = Task { for await _ in events {} }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...200)))
            let cancelled = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                reader.cancel()
                cancelled.signal()
            }
            guard cancelled.wait(timeout: .now() + 10) == .success else {
                Issue.record("cancelling a subscriber deadlocked with the publisher in round \(round)")
                return
            }
            await reader.value
        }
        #expect(hub.subscriberCount == 0, "every cancelled subscription was removed")
    }
}

/// Keeps the publisher thread of the deadlock test going until the test ends.
private final class PublishingFlag: Sendable {
    let on = Atomic<Bool>(true)
}
