import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// Linked devices' contents (docs/PROTOCOL.md §20.11). A device list is
/// checked against the one held of the sender's account (§20.3), kept, and
/// announced in the conversation; one that is refused is set aside with its
/// reason, and a late or replayed older one changes nothing. A sent
/// transcript needs sessions between one account's devices, which this
/// version does not hold: it is set aside with a reason that says so.
@Suite struct DeviceContentTests {
    @Test func listsAreCheckedKeptAndAnnouncedAndTheRestIsSetAside() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let random = DeterministicRandom(seed: "device contents")
        let phone = Ed25519.PrivateKey(using: random), laptop = Ed25519.PrivateKey(using: random)
        let account = alice.identity
        let phoneEntry = try DeviceListEntry.linking(phone, to: account.publicKey, name: "phone", addedAt: 1)
        let laptopEntry = try DeviceListEntry.linking(laptop, to: account.publicKey, name: "laptop", addedAt: 2)
        func list(_ counter: UInt64, _ entries: [DeviceListEntry]) throws -> [UInt8] {
            try DeviceList.sign(account: account, counter: counter, createdAt: counter, signer: phone, entries: entries).encoded
        }
        let stranger = IdentityKeyPair.generate(using: random)
        let strangers = try DeviceList.sign(account: stranger, counter: 1, createdAt: 1, signer: phone,
                                            entries: [try DeviceListEntry.linking(phone, to: stranger.publicKey, name: "phone", addedAt: 1)])
        let sent: [ContentBody] = [
            .deviceList(try list(1, [phoneEntry])),
            .deviceList(try list(2, [phoneEntry, laptopEntry])),
            .deviceList(try list(3, [phoneEntry, laptopEntry.revoked(at: 3)])),
            // A replay of list 2, arriving late: the newer list held stays.
            .deviceList(try list(2, [phoneEntry, laptopEntry])),
            // The laptop made active again: refused (§20.3 9c), whoever signs it.
            .deviceList(try list(4, [phoneEntry, laptopEntry])),
            // Another account's list from alice: refused (its IK is not hers).
            .deviceList(strangers.encoded),
            .sentTranscript(recipient: bob.identity.publicKey, Content(id: MessageID.random(using: random), sentAt: 1, body: .text("forged"))),
            // A counter past 2^63 − 1, properly signed: refused, not taken for a failure of bob's database
            // (which would keep the envelope, and every sync, failing for good).
            .deviceList(try list(UInt64(Int64.max) + 1, [phoneEntry, laptopEntry.revoked(at: 3)])),
        ]
        for body in sent { _ = try await alice.messenger.seal(body, to: "bob") }
        try await alice.messenger.send(text: "still talking", to: "bob")
        let report = try await bob.messenger.sync()
        #expect(report.quarantined + report.resendRequested == 4, "\(report)")
        let reasons = try await bob.messenger.quarantined().map(\.reason)
        #expect(reasons.filter { $0.contains("device list that is refused") }.count == 2, "\(reasons)")
        #expect(reasons.contains { $0.contains("makes a revoked device active again") } && reasons.contains { $0.contains("belongs to another account") }, "\(reasons)")
        #expect(reasons.contains { $0.contains("a sent transcript from alice, who is not a device of this account") }, "\(reasons)")
        #expect(reasons.contains { $0.contains("beyond 2^63") }, "\(reasons)")

        let held = try #require(try await bob.messenger.deviceList(ofContact: "alice"))
        #expect(held.counter == 3 && held.activeDevices.map(\.name) == ["phone"])
        let history = try await bob.messenger.history(with: "alice")
        #expect(history.map(\.body) == ["hello", "uses 1 device: \"phone\"", "linked a device: \"laptop\"", "revoked a device: \"laptop\"",
                                        "still talking"])
        #expect(history.filter { $0.contentType == DeviceListNotice.contentType }.count == 3)
    }
}

extension DeviceContentTests {
    /// A contact that holds an earlier list gets every list kept since, in
    /// order (§20.11): list 3 here is signed by a device list 2 added, so on
    /// its own it would be refused (`signerNotActive`) by a contact holding list 1.
    @Test func aContactBehindGetsTheListsInBetweenInOrder() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let random = DeterministicRandom(seed: "lists in order")
        let phone = Ed25519.PrivateKey(using: random), laptop = Ed25519.PrivateKey(using: random), tablet = Ed25519.PrivateKey(using: random)
        let account = alice.identity.publicKey
        let entries = [try DeviceListEntry.linking(phone, to: account, name: "phone", addedAt: 1),
                       try DeviceListEntry.linking(laptop, to: account, name: "laptop", addedAt: 2),
                       try DeviceListEntry.linking(tablet, to: account, name: "tablet", addedAt: 3)]
        let lists = try [(phone, 1), (phone, 2), (laptop, 3)].map { signer, count in
            try DeviceList.sign(account: alice.identity, counter: UInt64(count), createdAt: UInt64(count), signer: signer,
                                entries: Array(entries.prefix(count)))
        }
        let kept = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        try kept.deviceLists.keep(lists[0].encoded, counter: 1, at: 1)
        #expect(try await alice.messenger.announceDeviceList() == 1)
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.deviceList(ofContact: "alice")?.counter == 1)

        for list in lists.dropFirst() { try kept.deviceLists.keep(list.encoded, counter: list.counter, at: 2) }
        #expect(try await alice.messenger.announceDeviceList() == 1)
        let report = try await bob.messenger.sync()
        #expect(report.quarantined == 0, "\(report)")
        #expect(try await bob.messenger.deviceList(ofContact: "alice")?.counter == 3)
        #expect(try await bob.messenger.history(with: "alice").map(\.body).suffix(3)
                == ["uses 1 device: \"phone\"", "linked a device: \"laptop\"", "linked a device: \"tablet\""])
        // Nothing more to send: every contact holds the current list.
        #expect(try await alice.messenger.announceDeviceList() == 0)
    }
}

extension DeviceContentTests {
    /// §20.10 receiving, step 1: what a device sends whose account's list we
    /// hold but does not name it waits (not acknowledged: our list may be the
    /// older one), the account's directory is read after the pass, and the
    /// envelope opens at the next once the list there names the device.
    @Test func aDeviceTheHeldListDoesNotNameWaitsForTheList() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let devices = try DeskAndTablet(account: alice.identity, seed: "a device not listed yet")
        let (tablet, account) = (devices.tablet, alice.identity.publicKey)
        let kept = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        try kept.deviceLists.keep(devices.first.encoded, counter: 1, at: 1)
        try await alice.messenger.announceDeviceList()
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.deviceList(ofContact: "alice")?.counter == 1)

        // The tablet: a device of alice's account with its own key at the relay and its own store.
        let directory = try TemporaryDirectory(label: "messenger-tablet")
        let onTablet = Messenger(identity: alice.identity, device: tablet,
                                 store: try MessageStore(path: directory.path("messages.db"), key: SecureBytes(randomCount: 32)),
                                 transport: relay.transport(for: tablet.keyPair), clock: alice.clock,
                                 random: DeterministicRandom(seed: "random-tablet"))
        try await onTablet.register()
        try await onTablet.addContact(name: "bob", address: bob.address)
        try await onTablet.send(text: "from the tablet", to: "bob")
        let waiting = try await bob.messenger.sync()
        // The text and what goes before it (the tablet's delivery credential) wait.
        #expect(waiting.deferred >= 1 && waiting.received == 0, "\(waiting)")
        #expect(try await !bob.messenger.history(with: "alice").contains { $0.body == "from the tablet" })

        // The list naming the tablet is in alice's directory only (§20.9): the next sync defers the
        // envelope again, reads the directory after its pass, and opens the envelope on one more pass
        // (before, only at the sync after it: a sync that exited with "could not be opened").
        relay.state.withLock { $0.directories[account.rawRepresentation] = devices.second }
        let opened = try await bob.messenger.sync()
        #expect(opened.deferred == 0 && opened.received >= 1, "\(opened)")
        #expect(try await bob.messenger.deviceList(ofContact: "alice")?.counter == 2)
        let history = try await bob.messenger.history(with: "alice").map(\.body)
        #expect(history.contains("from the tablet") && history.contains("linked a device: \"tablet\""), "\(history)")
        #expect(try await bob.messenger.messageRequests().isEmpty, "filed under alice, not as a stranger")
    }

    /// The same between our own devices: alice's desk, whose list does not name the tablet yet, hears
    /// from it (the tablet's key at the relay is the lower, so it starts the session between them);
    /// the sync reads the account's directory after its pass and opens what the tablet sent in one
    /// more pass. Before, that sync exited with the envelopes deferred (a third linked device's first
    /// sync, in the end-to-end tests).
    @Test func aDeviceOfOursTheHeldListDoesNotNameIsReadInTheSameSync() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let devices = try DeskAndTablet(account: alice.identity, seed: "transcripts sends")
        #expect(devices.tablet.keyPair.publicKey.rawRepresentation.lexicographicallyPrecedes(alice.identity.publicKey.rawRepresentation))
        let desk = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        try desk.deviceLists.keep(devices.first.encoded, counter: 1, at: 1)
        let directory = try TemporaryDirectory(label: "messenger-tablet-own-list")
        let tabletStore = try MessageStore(path: directory.path("messages.db"), key: SecureBytes(randomCount: 32))
        for list in [devices.first, devices.second] { try tabletStore.deviceLists.keep(list.encoded, counter: list.counter, at: 1) }
        relay.state.withLock { $0.directories[alice.identity.publicKey.rawRepresentation] = devices.second }
        let tablet = Messenger(identity: alice.identity, device: devices.tablet, store: tabletStore,
                               transport: relay.transport(for: devices.tablet.keyPair), clock: alice.clock,
                               random: DeterministicRandom(seed: "random-tablet-own-list"))
        try await tablet.register()
        try await tablet.addContact(name: "bob", address: bob.address)
        // Its pass starts the session with the desk and sends our list on it.
        _ = try await tablet.sync()
        let report = try await alice.messenger.sync()
        #expect(report.deferred == 0, "\(report)")
        #expect(try desk.deviceLists.latestCounter() == 2)
    }
}
