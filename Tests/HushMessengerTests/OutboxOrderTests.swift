import HushMessenger
import Testing

/// What a user writes reaches the contact in the order it was written, even
/// across an outage: a message still waiting out its backoff goes out before
/// one written after it (found in a user walkthrough: "B2" showed above "B1"
/// on both sides once the relay came back).
@Suite struct OutboxOrderTests {
    @Test func aMessageWrittenAfterAnOutageDoesNotOvertakeTheOneBeforeIt() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        _ = try await bob.messenger.sync()

        relay.state.withLock { $0.depositFailures = [.unavailable(reason: "the relay is down")] }
        try await alice.messenger.send(text: "written during the outage", to: "bob")
        // The relay is back; the first message waits out its backoff, the second is due at once.
        try await alice.messenger.send(text: "written after it", to: "bob")
        _ = try await bob.messenger.sync()

        let received = try await bob.messenger.history(with: "alice").map(\.body)
        #expect(received.suffix(2) == ["written during the outage", "written after it"], "\(received)")
        let sent = try await alice.messenger.history(with: "bob").map(\.body)
        #expect(sent.suffix(2) == ["written during the outage", "written after it"], "\(sent)")
    }

    /// Within one pass, a request the relay could not take holds the later
    /// ones to the same mailbox: posted, they would arrive first.
    @Test func aFailedRequestHoldsTheLaterOnesToTheSameMailbox() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        _ = try await bob.messenger.sync()

        relay.state.withLock { $0.depositFailures = Array(repeating: .unavailable(reason: "the relay is down"), count: 2) }
        try await alice.messenger.send(text: "one", to: "bob")
        try await alice.messenger.send(text: "two", to: "bob")
        // "one" failed twice (alone, then first of its lane), and "two" waited with it instead of going
        // first. The backoff over, both go, in order.
        alice.clock.advance(milliseconds: 20_000)
        _ = await alice.messenger.flushOutbox()
        _ = try await bob.messenger.sync()
        let received = try await bob.messenger.history(with: "alice").map(\.body)
        #expect(received.suffix(2) == ["one", "two"], "\(received)")
    }
}
