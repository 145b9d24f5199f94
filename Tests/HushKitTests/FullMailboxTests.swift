import Foundation
@testable import HushKit
import Testing

/// A recipient's mailbox full at the relay (413 `quota_exceeded`,
/// docs/RELAY-API.md: "for quota, retry later") is a wait, not a refusal: the
/// messages stay pending and go, in order, once the recipient has fetched (a
/// walkthrough: they failed as "larger than the relay accepts" and went only
/// by `hush retry`).
@Suite struct FullMailboxTests {
    static func incoming(_ room: Room) async throws -> [String] {
        try await room.history(limit: 20).messages.filter { $0.text.hasPrefix("full ") }.map(\.text)
    }

    @Test func messagesToAFullMailboxWaitAndGoInOrderOnceItIsFetched() async throws {
        let relay = try RelayProcess(environment: ["HUSH_RELAY_QUOTAS_MAILBOX_COUNT": "3"])
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, aliceForBob) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        // Each holds the other's delivery credential: no first contact, which is rate-limited on its own.
        _ = try await bob.room(with: aliceForBob).send("hi alice")
        _ = try await alice.room(with: bobForAlice).send("hi bob")
        for _ in 0..<2 {
            _ = try await alice.sync()
            _ = try await bob.sync()
        }
        let room = try await alice.room(with: bobForAlice)
        let texts = (1...6).map { "full \($0)" }
        for text in texts { _ = try await room.send(text) }
        let waiting = try await alice.queuedMessages()
        #expect(!waiting.isEmpty, "the mailbox took every message: the quota did not apply")
        #expect(waiting.allSatisfy { $0.state == .pending }, "\(waiting.map(\.state))")

        let bobRoom = try await bob.room(with: aliceForBob)
        // Each waits out its backoff (1 s doubling, jittered), as it would under a daemon.
        for _ in 0..<120 {
            _ = try await bob.sync()
            _ = await alice.sendQueued()
            if try await Self.incoming(bobRoom) == texts { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(try await Self.incoming(bobRoom) == texts)
        #expect(try await alice.queuedMessages().isEmpty)
    }
}
