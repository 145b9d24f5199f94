import Testing
@testable import HushMessenger

extension Messenger {
    /// Savepoints the messenger's store connection has opened so far.
    func savepointsOpened() -> Int { store.database.savepointsOpened }

    /// Commits the store has written to its log so far (each an fsync).
    func commitsWritten() -> Int { store.database.checkpointer?.counts.commits ?? 0 }

    /// Of those, the commits not waited for on the disk.
    func deferredCommits() -> Int { store.database.deferredCommits }

    /// Whether a commit not waited for on the disk is not yet covered by one that was.
    func hasUnsyncedCommits() -> Bool { store.database.hasUnsyncedCommits }
}

/// Sending, receiving and the receipts a sync seals per stored message all
/// join one transaction each, with no savepoint per message.
@Suite struct MessengerSavepointTests {
    @Test func sendingAndSyncingOpenNoSavepoint() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        try await alice.messenger.send(text: "first", to: "bob")
        _ = try await bob.messenger.sync()
        // Accepting the request seals the owed receipts and the credential.
        try await bob.messenger.addContact(name: "alice", address: alice.address)
        for index in 0..<5 { try await alice.messenger.send(text: "message \(index)", to: "bob") }
        #expect(try await bob.messenger.sync().received == 5)
        _ = try await alice.messenger.sync()
        #expect(try await bob.messenger.markRead(contact: "alice") == 6)
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.history(with: "bob").allSatisfy { $0.status == .read })
        #expect(await alice.messenger.savepointsOpened() == 0)
        #expect(await bob.messenger.savepointsOpened() == 0)
    }

    /// A text costs two commits: its sealed envelope queued (waited for on
    /// the disk: its ratchet step must not be undone) and the relay's
    /// acceptance recorded (not waited for: lost, the deposit is made again
    /// under its request id). The attempt's time is written only with a failure.
    @Test func sendingATextCommitsTwiceAndWaitsForTheDiskOnce() async throws {
        let (alice, _) = try await InMemoryRelay().acquaintedPair()
        let before = await alice.messenger.commitsWritten(), deferredBefore = await alice.messenger.deferredCommits()
        try await alice.messenger.send(text: "second", to: "bob")
        #expect(await alice.messenger.commitsWritten() - before == 2)
        #expect(await alice.messenger.deferredCommits() - deferredBefore == 1)
    }
}
