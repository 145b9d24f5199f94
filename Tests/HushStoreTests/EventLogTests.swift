import HushDatabase
import HushStore
import Testing

/// The durable event log (issue 31, item 4): seqs stored with the change,
/// subscribers' cursors, pruning that never leaves a silent gap.
@Suite struct EventLogTests {
    private static func typing(_ contact: Int64) -> EventEntry {
        EventEntry(.typing, contactId: contact, detail: EventEntry.typingActive)
    }

    @Test func seqsIncreaseAndARolledBackEventLeavesNoRowAndNoGap() throws {
        let fixture = try StoreFixture()
        let events = fixture.store.events
        let first = try events.append(Self.typing(1), at: 10)
        struct Injected: Error {}
        #expect(throws: Injected.self) {
            try fixture.store.write { store in
                try store.events.append(Self.typing(2), at: 11)
                throw Injected()
            }
        }
        let second = try fixture.store.write { store in try store.events.append(Self.typing(3), at: 12) }
        #expect(first >= 1)
        #expect(second > first)
        let logged = try events.events(after: 0, limit: 10)
        #expect(logged.map(\.seq) == [first, second])
        #expect(logged.map(\.entry.contactId) == [1, 3])
        #expect(logged.map(\.createdAt) == [10, 12])
        #expect(try events.latestSeq() == second)
        // What a subscriber sees has no hole where the rolled-back one was.
        #expect(second == first + 1)
    }

    /// A commit that does not wait for the disk (a pushed message's receive)
    /// publishes its events before a power loss could take it back; the
    /// seqs it gave must never be given again. Here a rollback stands in for
    /// the power loss, and a second store on the file for the restart.
    @Test func seqsOfACommitThatAPowerLossTookBackAreNeverGivenAgain() throws {
        let fixture = try StoreFixture()
        try fixture.store.events.append(Self.typing(1), at: 1)
        try fixture.store.events.reserveSeqs(4, block: 8)
        struct PowerLoss: Error {}
        var published: [Int64] = []
        #expect(throws: PowerLoss.self) {
            try fixture.store.write(durability: .deferred) { store in
                published.append(try store.events.append(Self.typing(2), at: 2))
                published.append(try store.events.append(Self.typing(3), at: 3))
                #expect(try store.events.isWithinReservation())
                throw PowerLoss()
            }
        }
        let restarted = try MessageStore(path: fixture.path, key: fixture.key)
        let next = try restarted.events.append(Self.typing(4), at: 4)
        #expect(next > published.max() ?? .max, "a seq published before the loss was given again")
        // The range is used up: the next deferred commit reserves a new one.
        #expect(!(try restarted.events.isWithinReservation()))
        try restarted.events.reserveSeqs(4, block: 8)
        #expect(try restarted.events.isWithinReservation())
    }

    @Test func aReservationIsMadeOnlyWhenTheRangeIsShortAndCoversWhatItIsAskedFor() throws {
        let fixture = try StoreFixture()
        let events = fixture.store.events
        try events.reserveSeqs(64, block: 100)
        for time in 1...30 { try events.append(Self.typing(1), at: Int64(time)) }
        // 30 given, 70 left of the 100: enough for 64, so no new reservation.
        try events.reserveSeqs(64, block: 100)
        for time in 31...100 { try events.append(Self.typing(1), at: Int64(time)) }
        #expect(try events.isWithinReservation())
        try events.append(Self.typing(1), at: 101)
        #expect(!(try events.isWithinReservation()))
        try events.reserveSeqs(200, block: 100)
        for time in 102...301 { try events.append(Self.typing(1), at: Int64(time)) }
        #expect(try events.isWithinReservation(), "a request larger than the block reserved less than it asked for")
    }

    @Test func aPageStartsAfterTheGivenSeqAndKeepsEveryField() throws {
        let fixture = try StoreFixture()
        let entry = EventEntry(.statusChanged, messageId: 7, conversationId: 3, contactId: nil, attachmentId: nil, detail: "read")
        for time in 1...5 { try fixture.store.events.append(time == 3 ? entry : Self.typing(Int64(time)), at: Int64(time)) }
        let page = try fixture.store.events.events(after: 2, limit: 2)
        #expect(page.map(\.seq) == [3, 4])
        #expect(page[0].entry == entry)
    }

    @Test func aCursorRegistersOnFirstAcknowledgementAndNeverMovesBack() throws {
        let fixture = try StoreFixture()
        let events = fixture.store.events
        for time in 1...3 { try events.append(Self.typing(1), at: Int64(time)) }
        #expect(try events.cursor(subscriber: "bot") == nil)
        #expect(try events.acknowledge(through: 2, subscriber: "bot", at: 100).acknowledgedSeq == 2)
        #expect(try events.acknowledge(through: 1, subscriber: "bot", at: 101).acknowledgedSeq == 2)
        #expect(throws: StoreError.self) { try events.acknowledge(through: 4, subscriber: "bot", at: 102) }
        #expect(try events.cursor(subscriber: "bot")?.acknowledgedSeq == 2)
        #expect(try events.removeSubscriber("bot"))
        #expect(try events.cursor(subscriber: "bot") == nil)
    }

    @Test func pruningWaitsForEverySubscriberAndTheRetentionThenRefusesAReplayFromBefore() throws {
        let fixture = try StoreFixture()
        let events = fixture.store.events
        for time in 1...6 { try events.append(Self.typing(Int64(time)), at: Int64(time) * 1_000) }
        try events.acknowledge(through: 4, subscriber: "fast", at: 0)
        try events.acknowledge(through: 2, subscriber: "slow", at: 0)
        let retention = EventRetention(acknowledgedAge: 500, maximumAge: 1_000_000, maximumCount: 100)
        // At 3,400 only events 1 and 2 are both old enough and acknowledged by every subscriber.
        #expect(try events.prune(now: 3_400, retention: retention) == 2)
        #expect(try events.prunedThrough() == 2)
        #expect(try events.events(after: 2, limit: 10).map(\.seq) == [3, 4, 5, 6])
        #expect(throws: StoreError.eventsPruned(requestedAfter: 1, prunedThrough: 2)) { try events.events(after: 1, limit: 10) }
        // Nothing more until the slow one catches up.
        #expect(try events.prune(now: 100_000, retention: retention) == 0)
        try events.acknowledge(through: 6, subscriber: "slow", at: 0)
        #expect(try events.prune(now: 100_000, retention: retention) == 2)
        #expect(try events.events(after: 4, limit: 10).map(\.seq) == [5, 6])
        // A pruned seq is never given again.
        #expect(try events.append(Self.typing(9), at: 200_000) == 7)
    }

    @Test func theHardBoundsPruneWhatNoSubscriberAcknowledgedInBatches() throws {
        let fixture = try StoreFixture()
        let events = fixture.store.events
        for time in 1...10 { try events.append(Self.typing(1), at: Int64(time)) }
        try events.acknowledge(through: 0, subscriber: "asleep", at: 0)
        let capped = EventRetention(acknowledgedAge: 0, maximumAge: 1_000_000, maximumCount: 4)
        #expect(try events.prune(now: 20, retention: capped, batch: 4) == 4)
        #expect(try events.prunedThrough() == 4)
        #expect(try events.prune(now: 20, retention: capped, batch: 4) == 2)
        #expect(try events.events(after: 6, limit: 10).map(\.seq) == [7, 8, 9, 10])
        let aged = EventRetention(acknowledgedAge: 0, maximumAge: 12, maximumCount: 100)
        // Only event 7 was stored before 20 - 12 = 8.
        #expect(try events.prune(now: 20, retention: aged) == 1)
        #expect(throws: StoreError.eventsPruned(requestedAfter: 6, prunedThrough: 7)) { try events.events(after: 6, limit: 10) }
    }

    @Test func anIdempotencyKeyNamesItsMessageAndGoesWithIt() throws {
        let fixture = try StoreFixture()
        let conversation = try fixture.conversation("carol")
        let messageId = try fixture.outgoingPending(conversation, body: "once", at: 1, requestId: "r1")
        try fixture.store.idempotencyKeys.record("key-1", clientMessageId: "out-r1", at: 1)
        #expect(try fixture.store.idempotencyKeys.clientMessageId(forKey: "key-1") == "out-r1")
        #expect(throws: DatabaseError.self) { try fixture.store.idempotencyKeys.record("key-1", clientMessageId: "out-r1", at: 2) }
        try fixture.store.sendQueue.delete(requestId: "r1")
        #expect(try fixture.store.messages.message(id: messageId) == nil)
        #expect(try fixture.store.idempotencyKeys.clientMessageId(forKey: "key-1") == nil)
    }
}
