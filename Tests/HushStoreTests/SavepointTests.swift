import Testing
import HushStore

/// The send path's writes join the caller's transaction: each savepoint
/// would cost a sub-journal copy of every page it touches (encrypted again
/// by SQLCipher) and an FTS segment flush.
@Suite struct SavepointTests {
    @Test func theSendQueueInsideACallersTransactionOpensNoSavepoint() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("peer")
        try fixture.incoming(chat, serverId: 1, body: "hello", at: 1)
        try fixture.store.write { store in
            for index in 0..<20 {
                try fixture.outgoingPending(chat, body: "m\(index)", at: Int64(index), requestId: "r\(index)")
            }
            try store.sendQueue.markSent(requestId: "r0", serverId: 2, relayTimestamp: 2)
            try store.sendQueue.markFailed(requestId: "r1", error: "HTTP 422", nextAttemptAt: nil)
            try store.sendQueue.retry(requestId: "r1", at: 3)
            try store.sendQueue.replaceEnvelope(requestId: "r2", newRequestId: "r2b", sealedPayload: [1], at: 3)
            try store.sendQueue.delete(requestId: "r3")
            let first = try #require(try store.messages.history(conversationId: chat).first)
            try store.messages.markRead(upTo: first.id, in: chat, at: 4)
        }
        #expect(fixture.store.database.savepointsOpened == 0)
        // The counter counts: a write nested in a write is a savepoint.
        try fixture.store.write { store in try store.write { _ in } }
        #expect(fixture.store.database.savepointsOpened == 1)
    }
}
