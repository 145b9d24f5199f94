import Foundation
import HushKit
import Testing

/// The durable event log through HushKit's public API, on a real relay
/// process (issue 31, item 4): replay after a seq then live, with no gap and
/// no duplicate at the seam; acknowledgements and pruning; idempotent sends.
@Suite struct HushKitEventLogTests {
    /// What a subscriber's stream delivered so far, read by a task of its own.
    actor Collected {
        private(set) var items: [HushStreamedEvent] = []
        private(set) var failure: HushError?
        func add(_ item: HushStreamedEvent) { items.append(item) }
        func fail(_ error: any Error) { failure = error as? HushError }

        var records: [HushEventRecord] { items.compactMap { if case let .record(record) = $0 { record } else { nil } } }
        var received: Int { records.filter { if case .messageReceived = $0.event { true } else { false } }.count }

        /// Reads `stream` until it ends.
        static func reading(_ stream: AsyncThrowingStream<HushStreamedEvent, any Error>) -> (Collected, Task<Void, Never>) {
            let collected = Collected()
            let task = Task {
                do {
                    for try await item in stream { await collected.add(item) }
                } catch {
                    await collected.fail(error)
                }
            }
            return (collected, task)
        }
    }

    /// Waits until `condition` holds, at most `seconds` (a bound for a loaded machine).
    private static func eventually(within seconds: Double = 60, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    private static func isReceived(_ record: HushEventRecord) -> Bool {
        if case .messageReceived = record.event { true } else { false }
    }

    @Test func aReplayAfterASeqContinuesLiveWithNoGapAndNoDuplicate() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let room = try await alice.room(with: bobForAlice)
        let start = try await bob.latestEventSeq()

        // Stored while no one listened.
        for text in ["one", "two", "three"] { _ = try await room.send(text) }
        #expect(try await App.sync(bob) { try await bob.conversations().first?.unreadCount == 3 })
        let backlog = try await bob.events(after: start, limit: 100)
        let seqs = backlog.map(\.seq)
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count && seqs.allSatisfy { $0 > start })
        let received = backlog.filter(Self.isReceived)
        #expect(received.count == 3)
        #expect(try await bob.latestEventSeq() == seqs.last)

        // A client that processed the first resumes after it. Two more are
        // stored after it subscribed but before it reads: they are both in
        // the log and in the live feed, and must come once.
        let resumeAfter = try #require(received.first).seq
        let stream = bob.eventRecords(after: resumeAfter)
        for text in ["four", "five"] { _ = try await room.send(text) }
        #expect(try await App.sync(bob) { try await bob.conversations().first?.unreadCount == 5 })
        let (collected, reader) = Collected.reading(stream)
        defer { reader.cancel() }
        #expect(await Self.eventually { await collected.received >= 4 })

        // Then live only: one more while the stream waits.
        bob.startLive()
        _ = try await room.send("six")
        #expect(await Self.eventually { await collected.received >= 5 })
        let delivered = await collected.records
        let log = try await bob.events(after: resumeAfter, limit: 1_000)
        // Every durable event after the seq, in order, each once: exactly the log.
        #expect(delivered == Array(log.prefix(delivered.count)))
        #expect(Set(delivered.map(\.seq)).count == delivered.count)
        #expect(await collected.failure == nil)

        // The old stream API keeps working beside it.
        let plain = bob.events()
        _ = try await room.send("seven")
        #expect(await App.event(in: plain) { if case .messageReceived = $0 { true } else { false } } != nil)
    }

    @Test func acknowledgedEventsArePrunedAndAReplayFromBeforeThemIsRefused() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let room = try await alice.room(with: bobForAlice)
        for text in ["one", "two"] { _ = try await room.send(text) }
        #expect(try await App.sync(bob) { try await bob.conversations().first?.unreadCount == 2 })
        let log = try await bob.events(after: 0, limit: 100)
        let first = try #require(log.filter(Self.isReceived).first).seq
        let latest = try await bob.latestEventSeq()

        // Pruning waits for every subscriber: "slow" has seen only the first message.
        #expect(try await bob.acknowledgeEvents(through: latest, subscriber: "fast") == latest)
        #expect(try await bob.acknowledgeEvents(through: first, subscriber: "slow") == first)
        #expect(try await bob.acknowledgeEvents(through: 0, subscriber: "slow") == first, "a cursor never moves back")
        #expect(try await bob.eventCursor(subscriber: "slow") == first)
        #expect(try await bob.eventCursor(subscriber: "nobody") == nil)
        #expect(try await bob.pruneEvents(acknowledgedOlderThan: .zero) > 0)
        #expect(try await bob.prunedEventSeq() == first)
        #expect(try await bob.events(after: first, limit: 100) == log.filter { $0.seq > first })

        // Before what was pruned: an error that says where to resume, never a silent gap.
        let refused = await App.error { _ = try await bob.events(after: 0, limit: 100) }
        #expect(refused?.kind == .eventsPruned)
        #expect(refused?.reason.contains("\(first)") == true)
        let (collected, reader) = Collected.reading(bob.eventRecords(after: 0))
        defer { reader.cancel() }
        #expect(await Self.eventually { await collected.failure != nil })
        #expect(await collected.failure?.kind == .eventsPruned)
        #expect(await collected.items.isEmpty)

        // Bad input changes nothing.
        #expect(await App.errorKind { try await bob.acknowledgeEvents(through: latest + 1_000, subscriber: "fast") } == .invalidInput)
        #expect(await App.errorKind { try await bob.acknowledgeEvents(through: 1, subscriber: "") } == .invalidInput)
        #expect(await App.errorKind { _ = try await bob.events(after: first, limit: 0) } == .invalidInput)
        #expect(try await bob.removeEventSubscriber("slow"))
        #expect(try await bob.eventCursor(subscriber: "slow") == nil)
    }

    @Test func aSendRetriedWithItsIdempotencyKeyIsSentOnce() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let room = try await alice.room(with: bobForAlice)
        let first = try await room.send("once", idempotencyKey: "request-41")
        let again = try await room.send("once", idempotencyKey: "request-41")
        #expect(again.id == first.id && again.clientMessageID == first.clientMessageID)
        _ = try await room.send("marker")
        #expect(try await App.sync(bob) { try await bob.conversations().first?.unreadCount == 2 })
        let bobRoom = try await bob.room(try #require(try await bob.conversations().first).id)
        #expect(try await bobRoom.history().messages.map(\.text) == ["once", "marker"])
        #expect(try await room.history().messages.map(\.text) == ["once", "marker"])
        #expect(await App.errorKind { _ = try await room.send("refused", idempotencyKey: "") } == .invalidInput)
    }
}
