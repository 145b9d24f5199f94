import Foundation
import Synchronization
import HushMessenger
import HushTesting
import Testing

/// The live connection's fast path: a pushed envelope whose previous id is
/// at or below the sync cursor is stored without fetching the mailbox; any
/// other push makes the client sync, so nothing is skipped or stored twice.
@Suite struct PushFastPathTests {
    /// Alice and Bob, each with the other as a contact, and Bob's live
    /// connection up with its first sync done.
    private func connectedPair() async throws -> (InMemoryRelay, Participant, Participant, Task<Void, Never>) {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        _ = try await bob.messenger.addContact(name: "alice", address: alice.address)
        let messenger = bob.messenger, key = bob.identity.publicKey
        let live = Task { await messenger.runLive() }
        try await waitUntil("bob's live connection") {
            relay.isConnected(key) && relay.state.withLock { $0.fetchCalls } > 0
        }
        return (relay, alice, bob, live)
    }

    private static func bodies(_ messenger: Messenger, from contact: String) async throws -> [String] {
        try await messenger.history(with: contact).filter { $0.direction == .incoming }.map(\.body)
    }


    @Test func pushedEnvelopesAreStoredAndAcknowledgedWithoutFetchingTheMailbox() async throws {
        let (relay, alice, bob, live) = try await connectedPair()
        defer { live.cancel() }
        let bobMessenger = bob.messenger
        let bobKey = bob.identity.publicKey
        let fetchesBefore = relay.state.withLock { $0.fetchCalls }
        for index in 1...5 { _ = try await alice.messenger.send(text: "fast \(index)", to: "bob") }
        try await waitUntil("five messages at bob") { try await Self.bodies(bobMessenger, from: "alice").count == 5 }
        #expect(try await Self.bodies(bobMessenger, from: "alice") == (1...5).map { "fast \($0)" })
        #expect(relay.state.withLock { $0.fetchCalls } == fetchesBefore, "a push that could be applied directly made bob sync")
        try await waitUntil("bob's acknowledgements") { relay.stored(for: bobKey).isEmpty }
    }

    /// A pushed envelope's receive commits without waiting for the disk, so
    /// its event goes out a fsync sooner; the relay may delete it only once a
    /// commit that did wait covers it. A stranger's message (a request) owes
    /// no receipt, whose synced seal would cover it by the way: the
    /// acknowledgement must make it durable itself.
    @Test func aPushedEnvelopeIsAcknowledgedOnlyOnceItsReceiveIsOnTheDisk() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        let bobMessenger = bob.messenger, bobKey = bob.identity.publicKey
        let live = Task { await bobMessenger.runLive() }
        defer { live.cancel() }
        try await waitUntil("bob's live connection") {
            relay.isConnected(bobKey) && relay.state.withLock { $0.fetchCalls } > 0
        }
        let unsyncedAtAcknowledgement = Mutex<[Bool]>([])
        relay.state.withLock { state in
            state.beforeAcknowledge = { _ in
                let unsynced = await bobMessenger.hasUnsyncedCommits()
                unsyncedAtAcknowledgement.withLock { $0.append(unsynced) }
            }
        }
        let deferredBefore = await bobMessenger.deferredCommits()
        _ = try await alice.messenger.send(text: "from a stranger", to: "bob")
        try await waitUntil("the request acknowledged at the relay") { relay.stored(for: bobKey).isEmpty }
        #expect(await bobMessenger.deferredCommits() > deferredBefore, "the pushed envelope's receive waited for the disk")
        #expect(!unsyncedAtAcknowledgement.withLock { $0 }.isEmpty)
        #expect(unsyncedAtAcknowledgement.withLock { $0 }.allSatisfy { !$0 },
                "the relay was told to delete an envelope whose receive a power loss could still undo")
    }

    @Test func aPushThatOvertakesAnEarlierOneSyncsAndTheLatePushStoresNothingTwice() async throws {
        let (relay, alice, bob, live) = try await connectedPair()
        defer { live.cancel() }
        let bobMessenger = bob.messenger
        relay.state.withLock { $0.holdPushes = true }
        _ = try await alice.messenger.send(text: "first", to: "bob")
        _ = try await alice.messenger.send(text: "second", to: "bob")
        let fetchesBefore = relay.state.withLock { $0.fetchCalls }
        // "second" arrives first: its previous id is "first", which bob has not processed.
        relay.releasePush(at: 1)
        try await waitUntil("both messages at bob") { try await Self.bodies(bobMessenger, from: "alice").count == 2 }
        #expect(try await Self.bodies(bobMessenger, from: "alice") == ["first", "second"])
        let fetchesAfterSync = relay.state.withLock { $0.fetchCalls }
        #expect(fetchesAfterSync > fetchesBefore, "a push with an unprocessed envelope before it was applied without a sync")
        // The late push of "first" is already processed; "third" then goes the fast way again.
        relay.releasePush(at: 0)
        relay.state.withLock { $0.holdPushes = false }
        _ = try await alice.messenger.send(text: "third", to: "bob")
        try await waitUntil("the third message at bob") { try await Self.bodies(bobMessenger, from: "alice").count >= 3 }
        #expect(try await Self.bodies(bobMessenger, from: "alice") == ["first", "second", "third"])
        #expect(relay.state.withLock { $0.fetchCalls } == fetchesAfterSync)
    }

    @Test func aPushWithoutAPreviousIDOnlySignalsASync() async throws {
        let (relay, alice, bob, live) = try await connectedPair()
        defer { live.cancel() }
        let bobMessenger = bob.messenger
        relay.state.withLock { $0.holdPushes = true }
        _ = try await alice.messenger.send(text: "via sync", to: "bob")
        let fetchesBefore = relay.state.withLock { $0.fetchCalls }
        // As a relay that does not know the previous id (a catch-up push) sends it.
        let (held, socket) = relay.state.withLock { state in
            let held = state.heldPushes.removeFirst()
            return (held.envelope, state.sockets[held.mailbox])
        }
        socket?.yield(.envelope(MailboxEnvelope(serverID: held.serverID, relayTimestamp: held.relayTimestamp, bytes: held.bytes)))
        try await waitUntil("the message at bob") { try await Self.bodies(bobMessenger, from: "alice").count == 1 }
        #expect(relay.state.withLock { $0.fetchCalls } > fetchesBefore)
    }
}
