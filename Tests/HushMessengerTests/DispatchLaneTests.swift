import HushCrypto
import HushMessenger
import HushProtocol
import HushTesting
import Testing

/// The outbox posts requests to different mailboxes side by side and those
/// to one mailbox one after another (Dispatcher's lanes): a content to a
/// contact's linked devices is one request per device (§20.12), and posted
/// one after another each waited for the relay's commit.
@Suite struct DispatchLaneTests {
    @Test func requestsToTwoMailboxesArePostedTogetherAndToOneInTurn() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let carol = try Participant("carol", relay: relay)
        try await carol.messenger.register()
        try await alice.messenger.addContact(name: "carol", address: carol.address)
        try await alice.messenger.send(text: "hello", to: "carol")
        _ = try await carol.messenger.sync()
        try await carol.messenger.addContact(name: "alice", address: alice.address)
        _ = try await alice.messenger.sync()

        // Six requests wait, three to each mailbox.
        relay.state.withLock { $0.depositFailures = Array(repeating: .unavailable(reason: "down"), count: 6) }
        for index in 1...3 {
            try await alice.messenger.send(text: "bob \(index)", to: "bob")
            try await alice.messenger.send(text: "carol \(index)", to: "carol")
        }
        #expect(try await alice.messenger.outbox().count == 6)
        // (A request failing at once holds the later ones to its mailbox, so fewer failures were used.)
        relay.state.withLock { $0.depositFailures = [] }

        relay.state.withLock { $0.depositPause = .milliseconds(30) }
        alice.clock.advance(milliseconds: 60_000)
        let report = await alice.messenger.flushOutbox()
        #expect(report.sent == 6, "\(report)")
        let (most, mostToOne) = relay.state.withLock { ($0.mostDepositsInFlight, $0.mostDepositsInFlightToOneMailbox) }
        #expect(most == 2, "bob's and carol's mailboxes at once")
        #expect(mostToOne == 1, "one mailbox's requests in turn")

        relay.state.withLock { $0.depositPause = nil }
        _ = try await bob.messenger.sync()
        _ = try await carol.messenger.sync()
        #expect(Set(try await bob.messenger.history(with: "alice").map(\.body)).isSuperset(of: ["bob 1", "bob 2", "bob 3"]))
        #expect(Set(try await carol.messenger.history(with: "alice").map(\.body)).isSuperset(of: ["carol 1", "carol 2", "carol 3"]))
    }
}
