import Testing
import HushProtocol
import HushStore
@testable import HushMessenger

/// Delivery receipts go once per contact per receive pass, naming every
/// message the pass stored (up to 256 ids each), and are owed in the store
/// until sealed, so a crash after storing loses none.
@Suite struct DeliveryReceiptBatchTests {
    @Test func aSyncAnswersABacklogWithOneReceiptPer256Messages() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let count = ContentLimits.maxReceiptIDs + 44
        for index in 0..<count { try await alice.messenger.send(text: "backlog \(index)", to: "bob") }
        let report = try await bob.messenger.sync()
        #expect(report.received == count, "\(report)")
        // One envelope for the first 256 ids, one for the other 44.
        #expect(relay.stored(for: alice.identity.publicKey).count == 2)
        #expect(try await alice.messenger.sync().received == 2)
        let statuses = try await alice.messenger.history(with: "bob", limit: count + 10).filter { $0.body.hasPrefix("backlog") }.map(\.status)
        #expect(statuses.count == count && statuses.allSatisfy { $0 == .delivered }, "\(Set(statuses))")
    }

    /// The process stops after storing, before the end of the pass seals the
    /// receipt (`Inbox.receive` alone): the next run still sends it.
    @Test func aReceiptOwedWhenTheProcessStoppedIsSentByTheNextRun() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        try await alice.messenger.send(text: "stored, then the process died", to: "bob")
        let envelope = try #require(relay.stored(for: bob.identity.publicKey).last)
        #expect(try await bob.messenger.storeStoppingBeforeTheEndOfThePass(envelope) == .stored)
        #expect(relay.stored(for: alice.identity.publicKey).isEmpty)

        let restarted = try bob.reopened(relay: relay)
        _ = try await restarted.sync()
        #expect(relay.stored(for: alice.identity.publicKey).count == 1)
        _ = try await alice.messenger.sync()
        let sent = try #require(try await alice.messenger.history(with: "bob").last { $0.direction == .outgoing })
        #expect(sent.body == "stored, then the process died" && sent.status == .delivered)
    }
}

extension Messenger {
    /// What a sync page does with one envelope, as a process killed right
    /// after that commit leaves it: stored, its receipt owed, nothing sealed.
    fileprivate func storeStoppingBeforeTheEndOfThePass(_ envelope: MailboxEnvelope) throws -> ReceiveOutcome {
        try inbox.receive(envelope)
    }
}
