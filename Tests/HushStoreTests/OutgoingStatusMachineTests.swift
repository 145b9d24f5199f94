import Testing
@testable import HushStore

/// The outgoing status machine over every pair of statuses: the pure rule
/// first, then the store's guarded writes against it, one message per pair.
@Suite struct OutgoingStatusMachineTests {
    /// The rule, written out as a table rather than derived: (from, to) pairs that move.
    static let moves: Set<Pair> = [
        Pair(.pending, .sent), Pair(.failed, .sent),
        Pair(.pending, .failed), Pair(.failed, .pending),
        Pair(.pending, .delivered), Pair(.sent, .delivered),
        Pair(.pending, .read), Pair(.sent, .read), Pair(.delivered, .read),
    ]

    struct Pair: Hashable, CustomStringConvertible {
        let from: MessageStatus
        let to: MessageStatus
        init(_ from: MessageStatus, _ to: MessageStatus) { self.from = from; self.to = to }
        var description: String { "\(from) → \(to)" }
    }

    static let allPairs = MessageStatus.allCases.flatMap { from in MessageStatus.allCases.map { Pair(from, $0) } }

    @Test(arguments: allPairs) func theMachineAllowsExactlyTheTable(_ pair: Pair) {
        #expect(OutgoingStatusMachine.allows(from: pair.from, to: pair.to) == Self.moves.contains(pair))
    }

    @Test func statusNeverMovesBackOnceThePeerConfirmed() {
        for confirmed in [MessageStatus.delivered, .read] {
            for earlier in [MessageStatus.pending, .sent, .failed] {
                #expect(!OutgoingStatusMachine.allows(from: confirmed, to: earlier))
            }
        }
        #expect(MessageStatus.allCases.allSatisfy { !OutgoingStatusMachine.allows(from: .read, to: $0) })
    }

    /// Every pair through the store: a message stored in `from`, then the
    /// write that asks for `to`. It changes the status exactly when the machine allows it.
    @Test(arguments: allPairs) func theStoreWritesFollowTheMachine(_ pair: Pair) throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("peer")
        let stored = try fixture.store.messages.insert(NewMessage(
            conversationId: chat, clientMessageId: "m", direction: .outgoing, sender: "me", body: "hi",
            status: pair.from, createdAt: 1)).id
        let messages = fixture.store.messages
        switch pair.to {
        case .sent: try messages.recordAccepted(messageId: stored, serverId: 5, relayTimestamp: 2)
        case .failed, .pending: try messages.moveOutgoing(messageId: stored, to: pair.to)
        case .delivered, .read: try messages.advanceOutgoingStatus(clientMessageId: "m", to: pair.to, at: 3, conversationId: chat)
        }
        let expected = Self.moves.contains(pair) ? pair.to : pair.from
        #expect(try messages.message(id: stored)?.status == expected)
    }

    @Test func theQueueMovesTheMessageWithItsRequest() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("peer")
        let id = try fixture.outgoingPending(chat, body: "x", at: 1, requestId: "r")
        // A retry-later failure leaves the message pending; giving up fails it.
        try fixture.store.sendQueue.markFailed(requestId: "r", error: "HTTP 503", nextAttemptAt: 10)
        #expect(try fixture.store.messages.message(id: id)?.status == .pending)
        try fixture.store.sendQueue.markFailed(requestId: "r", error: "HTTP 422", nextAttemptAt: nil)
        #expect(try fixture.store.messages.message(id: id)?.status == .failed)
        try fixture.store.sendQueue.replaceEnvelope(requestId: "r", newRequestId: "r2", sealedPayload: [9], at: 20)
        #expect(try fixture.store.messages.message(id: id)?.status == .pending)
        #expect(try fixture.store.outbox.due(at: 20).map(\.requestId) == ["r2"])
        #expect(try fixture.store.sendQueue.markSent(requestId: "r2", serverId: 8, relayTimestamp: 21) == id)
        #expect(try fixture.store.messages.message(id: id)?.status == .sent)
    }
}
