import HushCrypto
import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// Two devices of `account` for device tests, from `seed`: the first
/// device's list key ("desk", which keeps the account key at the relay)
/// and a linked tablet with its own key, with the account's list of the
/// desk alone (counter 1) and of both (counter 2), signed by the desk.
struct DeskAndTablet {
    let tablet: LocalDevice
    let first: DeviceList
    let second: DeviceList
    /// The list after the desk revoked the tablet (counter 3).
    let third: DeviceList
    /// The same devices signed again (counter 4): it revokes nothing new.
    let fourth: DeviceList
    /// After `second`, the tablet revokes the desk, marked as the device that
    /// kept the account key (counter 3): the account key is retired (§20.14).
    let retiringDesk: DeviceList

    init(account: IdentityKeyPair, seed: String) throws {
        let random = DeterministicRandom(seed: seed)
        let desk = Ed25519.PrivateKey(using: random)
        let tabletSeed = SecureBytes(copying: random.bytes(32))
        tablet = try LocalDevice(seed: tabletSeed, account: account)
        let deskEntry = try DeviceListEntry.linking(desk, to: account.publicKey, name: "desk", addedAt: 1)
        let tabletEntry = try DeviceListEntry.linking(try Ed25519.PrivateKey(seed: tabletSeed), to: account.publicKey, name: "tablet",
                                                      addedAt: 2)
        first = try DeviceList.sign(account: account, counter: 1, createdAt: 1, signer: desk, entries: [deskEntry])
        second = try DeviceList.sign(account: account, counter: 2, createdAt: 2, signer: desk, entries: [deskEntry, tabletEntry])
        third = try DeviceList.sign(account: account, counter: 3, createdAt: 3, signer: desk, entries: [deskEntry, tabletEntry.revoked(at: 3)])
        fourth = try DeviceList.sign(account: account, counter: 4, createdAt: 4, signer: desk, entries: [deskEntry, tabletEntry.revoked(at: 3)])
        retiringDesk = try DeviceList.sign(account: account, counter: 3, createdAt: 3, signer: try Ed25519.PrivateKey(seed: tabletSeed),
                                           entries: [deskEntry.revoked(at: 3).keepingAccountKey(), tabletEntry])
    }
}

/// Alice's first device ("desk", the account key at the relay, her
/// `Participant`) and a linked tablet with its own key and store, both
/// holding alice's list of the two; bob holds it too, and each side's
/// passes have run, so the sessions between them exist. Of the two seeds
/// `label` picks, "tablet starts" gives the tablet the lower key at the
/// relay (it starts the session between the devices), any other the desk.
struct LinkedAlice {
    let relay: InMemoryRelay
    let alice: Participant
    let bob: Participant
    let tablet: Messenger
    let tabletKey: IdentityKey
    let tabletDirectory: TemporaryDirectory
    let devices: DeskAndTablet
    /// The tablet's database key, so a test can open a second connection to its store.
    var tabletDatabaseKey: SecureBytes

    /// A second connection to the tablet's store (to inject local faults).
    func tabletStore() throws -> MessageStore {
        try MessageStore(path: tabletDirectory.path("messages.db"), key: tabletDatabaseKey)
    }
}

extension InMemoryRelay {
    /// `before` runs once alice and bob are acquainted, before the tablet
    /// exists. Without `settled`, only bob's first pass runs after the
    /// desk's list went to him (he starts his session with the tablet after
    /// it; nothing else has run), and `label` is only the seed.
    func linkedAlice(_ label: String, settled: Bool = true,
                     before: (Participant, Participant) async throws -> Void = { _, _ in }) async throws -> LinkedAlice {
        let (alice, bob) = try await acquaintedPair()
        try await before(alice, bob)
        let seed = settled ? (label == "tablet starts" ? "transcripts sends" : "transcripts read") : label
        let devices = try DeskAndTablet(account: alice.identity, seed: seed)
        let deskStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        let directory = try TemporaryDirectory(label: "messenger-tablet-\(label)")
        let tabletKey = SecureBytes(randomCount: 32)
        let tabletStore = try MessageStore(path: directory.path("messages.db"), key: tabletKey)
        for store in [deskStore, tabletStore] {
            try store.deviceLists.keep(devices.first.encoded, counter: 1, at: 1)
            try store.deviceLists.keep(devices.second.encoded, counter: 2, at: 2)
        }
        let tablet = Messenger(identity: alice.identity, device: devices.tablet, store: tabletStore,
                               transport: transport(for: devices.tablet.keyPair), clock: alice.clock,
                               random: DeterministicRandom(seed: "random-tablet-\(label)"),
                               attachmentDirectory: directory.path("attachments"))
        try await tablet.register()
        try await tablet.addContact(name: "bob", address: bob.address)
        try await alice.messenger.announceDeviceList()
        // Each side's pass starts the sessions it starts: with the other device, with bob's.
        _ = try await bob.messenger.sync()
        let tabletRelayKey = devices.tablet.keyPair.publicKey
        guard settled else {
            return LinkedAlice(relay: self, alice: alice, bob: bob, tablet: tablet, tabletKey: tabletRelayKey, tabletDirectory: directory,
                               devices: devices, tabletDatabaseKey: tabletKey)
        }
        _ = try await alice.messenger.sync()
        _ = try await tablet.sync()
        _ = try await bob.messenger.sync()
        _ = try await alice.messenger.sync()
        // The two seeds give both orders of the keys, so both devices are seen starting the session.
        #expect(tabletRelayKey.rawRepresentation.lexicographicallyPrecedes(alice.identity.publicKey.rawRepresentation) == (label == "tablet starts"))
        return LinkedAlice(relay: self, alice: alice, bob: bob, tablet: tablet, tabletKey: tabletRelayKey, tabletDirectory: directory,
                           devices: devices, tabletDatabaseKey: tabletKey)
    }
}
