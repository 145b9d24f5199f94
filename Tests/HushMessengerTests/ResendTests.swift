import Foundation
import Testing
import HushCrypto
import HushMessenger
import HushProtocol
import HushStore

/// A message the receiver cannot decrypt never vanishes: the receiver names
/// it in a decryption error, the sender seals it again, once.
@Suite struct ResendTests {
    /// Alice and Bob in an established session (each holds the other's credential).
    private func conversation() async throws -> (InMemoryRelay, Participant, Participant) {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        try await alice.messenger.send(text: "hello", to: "bob")
        _ = try await bob.messenger.sync()
        try await bob.messenger.addContact(name: "alice", address: alice.address)
        try await bob.messenger.send(text: "hi", to: "alice")
        _ = try await alice.messenger.sync()
        _ = try await bob.messenger.sync()
        return (relay, alice, bob)
    }

    /// `turns` exchanges, each a new ratchet chain on both sides.
    private func converse(_ alice: Participant, _ bob: Participant, turns: Int) async throws {
        for turn in 0..<turns {
            try await alice.messenger.send(text: "a\(turn)", to: "bob")
            _ = try await bob.messenger.sync()
            try await bob.messenger.send(text: "b\(turn)", to: "alice")
            _ = try await alice.messenger.sync()
        }
    }

    /// Takes the last envelope out of `user`'s mailbox, as a relay (or a
    /// network) that delays it would.
    private func withhold(from relay: InMemoryRelay, _ user: Participant) -> MailboxEnvelope? {
        relay.state.withLock { $0.mailboxes[user.identity.publicKey.rawRepresentation]?.popLast() }
    }

    @Test func aMessageDelayedManyTurnsStillOpens() async throws {
        let (relay, alice, bob) = try await conversation()
        try await alice.messenger.send(text: "delayed through an outage", to: "bob")
        let delayed = try #require(withhold(from: relay, bob))
        try await converse(alice, bob, turns: RatchetLimits.maxSkippedChains + 2)
        relay.inject(delayed.bytes, into: bob.identity.publicKey)
        let report = try await bob.messenger.sync()
        #expect(report.quarantined == 0 && report.received >= 1, "\(report)")
        #expect(try await bob.messenger.history(with: "alice", limit: 500).map(\.body).contains("delayed through an outage"))
    }

    /// Delivers `envelope` to Bob only after `turns` more turns and after his
    /// skipped key for it has aged out (`maxSkippedKeyAgeSeconds`).
    private func deliverTooLate(_ envelope: MailboxEnvelope, via relay: InMemoryRelay, _ alice: Participant, _ bob: Participant,
                                turns: Int) async throws {
        try await converse(alice, bob, turns: turns)
        bob.clock.advance(milliseconds: (RatchetLimits.maxSkippedKeyAgeSeconds + 86_400) * 1000)
        relay.inject(envelope.bytes, into: bob.identity.publicKey)
    }

    @Test func aMessageThatCannotBeDecryptedIsReportedAndResentOnce() async throws {
        let (relay, alice, bob) = try await conversation()
        try await alice.messenger.send(text: "delayed past every bound", to: "bob")
        let delayed = try #require(withhold(from: relay, bob))
        try await deliverTooLate(delayed, via: relay, alice, bob, turns: 3)
        let report = try await bob.messenger.sync()
        #expect(report.resendRequested == 1 && report.quarantined == 0, "its key is gone; Alice is asked: \(report)")
        _ = try await alice.messenger.sync()   // the decryption error arrives; the message is sealed again
        _ = try await bob.messenger.sync()
        let received = try await bob.messenger.history(with: "alice", limit: 500).map(\.body)
        #expect(received.filter { $0 == "delayed past every bound" }.count == 1, "arrived once: \(received)")

        _ = try await alice.messenger.sync()
        let sent = try await alice.messenger.history(with: "bob", limit: 500)
        let message = try #require(sent.first { $0.body == "delayed past every bound" })
        #expect(message.status == .delivered)
        #expect(try await alice.messenger.resentMessages(in: "bob") == [message.clientMessageId])
        #expect(sent.map(\.body).firstIndex(of: "delayed past every bound") == sent.map(\.body).firstIndex(of: "a0")! - 1,
                "it keeps its place in Alice's history")

        // The same bytes again (a replay): set aside, but not reported twice.
        relay.inject(delayed.bytes, into: bob.identity.publicKey)
        let replay = try await bob.messenger.sync()
        #expect(replay.quarantined == 1 && replay.resendRequested == 0, "\(replay)")
        #expect(try await bob.messenger.outbox().isEmpty, "no second decryption error")
    }

    /// An edit of a message bob never opened is ignored (its message is
    /// unknown to him); the resend of that message then carries the current
    /// text (docs/PROTOCOL.md §10.6), so bob ends with the author's latest.
    @Test func aMessageEditedBeforeItsResendIsResentWithItsCurrentText() async throws {
        let (relay, alice, bob) = try await conversation()
        let original = try await alice.messenger.send(text: "the first words", to: "bob")
        let delayed = try #require(withhold(from: relay, bob))
        alice.clock.advance(seconds: 1)
        _ = try await alice.messenger.edit(message: original.id, text: "the words as edited")
        try await deliverTooLate(delayed, via: relay, alice, bob, turns: 3)
        let report = try await bob.messenger.sync()
        #expect(report.resendRequested == 1, "\(report)")
        _ = try await alice.messenger.sync()
        _ = try await bob.messenger.sync()
        let received = try await bob.messenger.history(with: "alice", limit: 500).map(\.body)
        #expect(received.contains("the words as edited") && !received.contains("the first words"), "\(received)")
    }

    @Test func aMessageIsResentAtMostOnce() async throws {
        let (relay, alice, bob) = try await conversation()
        try await alice.messenger.send(text: "once", to: "bob")
        let first = try #require(withhold(from: relay, bob))
        try await deliverTooLate(first, via: relay, alice, bob, turns: 2)
        #expect(try await bob.messenger.sync().resendRequested == 1)
        // Alice's resend is delayed past the bound too.
        _ = try await alice.messenger.sync()
        let resend = try #require(withhold(from: relay, bob))
        try await deliverTooLate(resend, via: relay, alice, bob, turns: 2)
        #expect(try await bob.messenger.sync().resendRequested == 1, "Bob asks again; Alice does not resend twice")
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.outbox().isEmpty, "resent once, not in a loop")
        let status = try await alice.messenger.history(with: "bob", limit: 500).first { $0.body == "once" }?.status
        #expect(status == .sent, "never confirmed: still only sent")
    }

    @Test func aRetriedMessageIsSealedAgainOnTheCurrentSession() async throws {
        let (relay, alice, bob) = try await conversation()
        relay.state.withLock { $0.depositFailures = [.rejected(status: 422, code: "malformed")] }
        let failed = try await alice.messenger.send(text: "retried after the conversation moved on", to: "bob")
        #expect(failed.status == .failed)
        let stale = try #require(try await alice.messenger.outbox().first).payload
        try await converse(alice, bob, turns: RatchetLimits.maxSkippedChains + 2)
        _ = try await alice.messenger.retry(requestID: nil)
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.history(with: "alice", limit: 500).map(\.body).contains("retried after the conversation moved on"))
        let later = try await bob.messenger.sync()
        #expect(later.quarantined == 0 && later.resendRequested == 0)
        #expect(!relay.state.withLock { $0.mailboxes.values.joined().contains { $0.bytes == stale } }, "the stale envelope was never posted")
    }
}
