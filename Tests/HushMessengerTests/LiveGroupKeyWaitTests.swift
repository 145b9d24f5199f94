import Foundation
import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// A live connection (a daemon, `hush listen`) that is pushed a group
/// message before its sender's key keeps it waiting at the relay; once the
/// key is pushed too, the message opens without a `hush sync` by hand (a
/// walkthrough: a new member's daemon showed the group's first message only
/// after one, since the pushes after it took the fast path past it).
@Suite struct LiveGroupKeyWaitTests {
    @Test func aGroupMessagePushedBeforeItsKeyOpensWhenTheKeyIsPushed() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        try await alice.messenger.createGroup(name: "team", members: ["bob"])
        for _ in 0..<2 {
            _ = try await bob.messenger.sync()
            _ = try await alice.messenger.sync()
        }
        // Bob holds the group but not Alice's chain: her distribution is still on its way.
        nonisolated(unsafe) let bobStore = try MessageStore(path: bob.databasePath, key: bob.databaseKey)
        let aliceKey = alice.identity.publicKey.rawRepresentation
        try bobStore.database.execute("DELETE FROM sender_chains WHERE member_key = ?", [aliceKey])
        let aliceStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        let own = try #require(try aliceStore.database.query(
            "SELECT chain FROM sender_chains WHERE member_key = ?", [aliceKey]) { try $0.get(0, as: [UInt8].self) }.first)
        let distribution = try SenderKeyChain.deserialize(own).distribution(from: alice.identity.publicKey)

        let bobMessenger = bob.messenger, bobKey = bob.identity.publicKey
        let live = Task { await bobMessenger.runLive() }
        defer { live.cancel() }
        try await waitUntil("bob's live connection") { relay.isConnected(bobKey) && relay.state.withLock { $0.fetchCalls } > 0 }

        try await alice.messenger.send(text: "before the key", to: "team")
        try await waitUntil("the message kept waiting at bob") {
            try bobStore.database.query("SELECT count(*) FROM quarantined_envelopes WHERE deferred = 1") { try $0.get(0, as: Int64.self) }.first ?? 0 > 0
        }
        #expect(try await bobMessenger.history(with: "team").isEmpty)

        try await alice.messenger.seal(.senderKeyDistribution(distribution), to: "bob")
        _ = await alice.messenger.flushOutbox()
        try await waitUntil("the message opened at bob") {
            try await bobMessenger.history(with: "team").map(\.body) == ["before the key"]
        }
        try await waitUntil("every envelope acknowledged") { relay.stored(for: bobKey).isEmpty }
    }
}
