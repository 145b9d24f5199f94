import HushDatabase
@testable import HushStore
import Testing

/// Schema version 37: a pass asks, for each request not due yet, whether a
/// later one of its conversation is; that question goes through
/// `outbox_by_conversation` instead of scanning every due request.
@Suite struct OutboxOrderIndexTests {
    @Test func theLaterRequestOfAConversationIsFoundThroughTheIndex() throws {
        let fixture = try StoreFixture()
        let plan = try fixture.store.database.query("EXPLAIN QUERY PLAN " + OutboxRepository.duePageQuery, [0, 100, 0]) {
            try $0.get(3, as: String.self)
        }
        #expect(plan.contains { $0.contains("outbox_by_conversation") }, "plan: \(plan)")
    }

    @Test func aBackedOffQueueStillComesOutInOrder() throws {
        let fixture = try StoreFixture()
        let first = try fixture.conversation("first")
        let second = try fixture.conversation("second")
        for index in 0..<300 {
            try fixture.outgoingPending(index % 2 == 0 ? first : second, body: "m\(index)", at: 10, requestId: "r\(index)")
            try fixture.store.sendQueue.markFailed(requestId: "r\(index)", error: "HTTP 503", nextAttemptAt: 5_000)
        }
        // One request of `second` is due: every earlier one of `second` goes with it, none of `first`.
        try fixture.store.sendQueue.retry(requestId: "r201", at: 100)
        let due = try fixture.store.outbox.due(at: 1_000, limit: 1_000).map(\.requestId)
        #expect(due == stride(from: 1, through: 201, by: 2).map { "r\($0)" })
    }
}
