import Foundation
import HushCrypto
import HushMessenger
import HushProtocol
import HushStore
import HushTesting

/// One user for pipeline tests: an identity, a real SQLCipher store in a
/// temporary directory, and a messenger on the in-memory relay.
final class Participant {
    let name: String
    let identity: IdentityKeyPair
    let directory: TemporaryDirectory
    let clock: ManualClock
    let messenger: Messenger
    /// The messenger's database file and key, so a test can open a second
    /// connection to inject local faults.
    let databasePath: String
    let databaseKey: SecureBytes

    init(_ name: String, relay: InMemoryRelay, clock: ManualClock = ManualClock(start: 1_700_000_000_000), seed: String? = nil,
         maxMessageRequests: Int = Messenger.defaultMaxMessageRequests,
         backoff: BackoffPolicy = BackoffPolicy(baseMilliseconds: 1_000, capMilliseconds: 8_000, maximumAttempts: 3)) throws {
        self.name = name
        self.clock = clock
        identity = IdentityKeyPair.generate(using: DeterministicRandom(seed: seed ?? "identity-\(name)"))
        directory = try TemporaryDirectory(label: "messenger-\(name)")
        databasePath = directory.path("messages.db")
        databaseKey = SecureBytes(randomCount: 32)
        let store = try MessageStore(path: databasePath, key: databaseKey)
        messenger = Messenger(identity: identity, store: store, transport: relay.transport(for: identity), clock: clock,
                              random: DeterministicRandom(seed: "random-\(name)-\(seed ?? "")"),
                              backoff: backoff, attachmentDirectory: directory.path("attachments"), maxMessageRequests: maxMessageRequests)
    }

    var address: String { identity.address.description }

    /// A second messenger on this participant's database, as a new process
    /// (after a restart or a crash) would open it: nothing is shared with the
    /// first but what is committed. Its random source is its own, so it
    /// never repeats the first messenger's keys.
    func reopened(relay: InMemoryRelay) throws -> Messenger {
        Messenger(identity: identity, store: try MessageStore(path: databasePath, key: databaseKey),
                  transport: relay.transport(for: identity), clock: clock,
                  random: DeterministicRandom(seed: "random-\(name)-reopened"),
                  backoff: BackoffPolicy(baseMilliseconds: 1_000, capMilliseconds: 8_000, maximumAttempts: 3),
                  attachmentDirectory: directory.path("attachments"))
    }
}

extension InMemoryRelay {
    /// Alice and Bob, registered on this relay; Alice has added Bob.
    func pair() async throws -> (alice: Participant, bob: Participant) {
        let alice = try Participant("alice", relay: self), bob = try Participant("bob", relay: self)
        try await alice.messenger.register()
        try await bob.messenger.register()
        try await alice.messenger.addContact(name: "bob", address: bob.address)
        return (alice, bob)
    }

    /// `pair()`, then contacts of each other after one exchange: Alice's
    /// "hello" reached Bob as a request, Bob accepted it, and Alice has
    /// Bob's delivery credential.
    func acquaintedPair() async throws -> (alice: Participant, bob: Participant) {
        let (alice, bob) = try await pair()
        try await alice.messenger.send(text: "hello", to: "bob")
        _ = try await bob.messenger.sync()
        try await bob.messenger.addContact(name: "alice", address: alice.address)
        _ = try await alice.messenger.sync()
        return (alice, bob)
    }
}
