import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// Contacts on every device of an account (docs/PROTOCOL.md §20.16): what
/// the user decides about a contact on one device (adding, accepting a
/// request, blocking, verifying, removing) holds on the others, and the
/// newer of two changes made apart wins on both.
@Suite struct ContactRecordTests {
    /// Carol, registered on `relay`, whom alice's desk adds by address.
    private func carol(on relay: InMemoryRelay, _ name: String = "carol") async throws -> Participant {
        let carol = try Participant(name, relay: relay)
        try await carol.messenger.register()
        return carol
    }

    /// Carol, a stranger, writes first to alice: she reads alice's directory
    /// (the list of both devices) and reaches both, a request on each.
    private func carolWritesFirst(to setup: LinkedAlice) async throws -> Participant {
        let carol = try await carol(on: setup.relay)
        setup.relay.state.withLock { $0.directories[setup.alice.identity.publicKey.rawRepresentation] = setup.devices.second }
        try await carol.messenger.addContact(name: "alice", address: setup.alice.address)
        _ = try await carol.messenger.sync()
        try await carol.messenger.send(text: "hello alice, it is carol", to: "alice")
        return carol
    }

    @Test(arguments: ["tablet starts", "desk starts"])
    func aContactAddedOnOneDeviceCanBeWrittenToFromTheOther(_ label: String) async throws {
        let setup = try await InMemoryRelay().linkedAlice(label)
        let (alice, tablet) = (setup.alice, setup.tablet)
        let carol = try await carol(on: setup.relay)
        try await alice.messenger.addContact(name: "carol", address: carol.address)
        try await alice.messenger.send(text: "hi carol, from the desk", to: "carol")

        // Before contact records, the tablet set the desk's transcript aside: carol was no contact there.
        let first = try await tablet.sync()
        let reasons = try await tablet.quarantined().map(\.reason)
        #expect(first.quarantined == 0, "\(reasons)")
        let added = try #require(try await tablet.contacts().first { $0.name == "carol" })
        #expect(added.identityKey == carol.identity.publicKey.rawRepresentation && added.standing == .accepted)
        #expect(try await tablet.history(with: "carol").map(\.body) == ["hi carol, from the desk"])

        // The pass started the tablet's own session with her: it writes to her at once.
        try await tablet.send(text: "and from the tablet", to: "carol")
        _ = try await carol.messenger.sync()
        try await carol.messenger.addContact(name: "alice", address: alice.address)
        let onCarol = try await carol.messenger.history(with: "alice").map(\.body)
        #expect(onCarol.contains("hi carol, from the desk") && onCarol.contains("and from the tablet"), "\(onCarol)")
    }

    @Test(arguments: ["tablet starts", "desk starts"])
    func blockedOnOneDeviceIsBlockedOnTheOther(_ label: String) async throws {
        let setup = try await InMemoryRelay().linkedAlice(label)
        let (alice, bob, tablet) = (setup.alice, setup.bob, setup.tablet)
        let deskStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey), tabletStore = try setup.tabletStore()
        func credential(_ store: MessageStore) throws -> String? { try store.settings.value(SettingsRepository.Name.deliveryCredential) }
        // (This harness's tablet registered a credential of its own; a link copies the account's.)
        let before = try credential(deskStore)
        try await alice.messenger.block(name: "bob")
        _ = try await tablet.sync()
        #expect(try await tablet.contacts().first { $0.name == "bob" }?.standing == .blocked)
        // Bob held the account's delivery credential: the desk replaced it, and the tablet registers the
        // same new one at its mailbox (bob's old one withdrawn there too).
        let replaced = try credential(deskStore), tabletReplaced = try credential(tabletStore)
        #expect(replaced != before && replaced == tabletReplaced)
        #expect(try tabletStore.settings.value(SettingsRepository.Name.revokedDeliveryCredentials) == nil)

        _ = try await bob.messenger.sync()
        try await bob.messenger.send(text: "are you there?", to: "alice")
        let report = try await tablet.sync()
        #expect(report.dropped >= 1 && report.received == 0, "\(report)")
        #expect(!(try await tablet.history(with: "bob").contains { $0.body == "are you there?" }))

        // Unblocked on the tablet: accepted again on the desk.
        try await tablet.acceptRequest(name: "bob")
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.contacts().first { $0.name == "bob" }?.standing == .accepted)
    }

    @Test func aRequestAcceptedOnOneDeviceIsAcceptedAndNamedOnTheOther() async throws {
        let setup = try await InMemoryRelay().linkedAlice("desk starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        let carol = try await carolWritesFirst(to: setup)
        _ = try await alice.messenger.sync()
        _ = try await tablet.sync()
        let onDesk = try #require(try await alice.messenger.messageRequests().first)
        #expect(try await tablet.messageRequests().count == 1)

        try await alice.messenger.acceptRequest(name: onDesk.contact.name, renameTo: "carol")
        _ = try await tablet.sync()
        #expect(try await tablet.messageRequests().isEmpty)
        let accepted = try #require(try await tablet.contacts().first { $0.identityKey == carol.identity.publicKey.rawRepresentation })
        #expect(accepted.name == "carol" && accepted.standing == .accepted)
        #expect(try await tablet.history(with: "carol").contains { $0.body == "hello alice, it is carol" })
    }

    @Test func verificationAndRemovalFollow() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        let number = try await alice.messenger.safetyNumber(with: "bob").number
        #expect(try await alice.messenger.verify(name: "bob", displayed: number.digits))
        _ = try await tablet.sync()
        #expect(try await tablet.contacts().first { $0.name == "bob" }?.verification == .verified)

        // Bob was the desk's only contact: no conversation is left to file the removal under, so it
        // waits for the next thing sealed to the tablet (here the record of a contact added next).
        try await alice.messenger.removeContact(name: "bob")
        _ = try await tablet.sync()
        #expect(try await tablet.contacts().map(\.name) == ["bob"])
        let carol = try await carol(on: setup.relay)
        try await alice.messenger.addContact(name: "carol", address: carol.address)
        _ = try await alice.messenger.flushOutbox()
        _ = try await tablet.sync()
        #expect(try await tablet.contacts().map(\.name) == ["carol"])
        #expect(try await tablet.conversations().map(\.title) == ["carol"])

        // Removed while another conversation is left: at once.
        let dave = try await self.carol(on: setup.relay, "dave")
        try await alice.messenger.addContact(name: "dave", address: dave.address)
        try await alice.messenger.removeContact(name: "carol")
        _ = try await tablet.sync()
        #expect(try await tablet.contacts().map(\.name) == ["dave"])
    }

    /// A removal is remembered: the older record of the contact that the
    /// other device hands over on a new session (it never got the removal)
    /// does not add the contact back, and the removal reaches that device.
    @Test func aRemovalIsNotUndoneByAnOlderRecord() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        let carol = try await carol(on: setup.relay)
        try await alice.messenger.addContact(name: "carol", address: carol.address)
        _ = try await alice.messenger.flushOutbox()
        _ = try await tablet.sync()
        #expect(try await tablet.contacts().contains { $0.name == "carol" })

        let deskStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        alice.clock.advance(seconds: 1)
        try await alice.messenger.removeContact(name: "carol")
        // The tablet never gets it this way, and then loses its session with the desk: it starts a new
        // one when the desk next writes on the old, and hands its contacts over before it hears of the
        // removal (carol among them, as changed before it).
        try deskStore.database.execute("DELETE FROM outbox")
        try setup.tabletStore().database.execute("DELETE FROM own_device_sessions")
        try await alice.messenger.send(text: "to bob from the desk", to: "bob")
        let lost = try await tablet.sync()
        #expect(lost.quarantined >= 1, "\(lost)")
        _ = try await alice.messenger.sync()
        _ = try await tablet.sync()
        #expect(!(try await alice.messenger.contacts().contains { $0.name == "carol" }), "the tablet's older record added her back")
        #expect(!(try await tablet.contacts().contains { $0.name == "carol" }))
    }

    /// Both devices change bob while neither has synced: of two changes to
    /// one field (blocked or not) the later wins on both, whichever device
    /// made it; a change to another field (the tablet's verification) is
    /// kept beside it on both.
    @Test(arguments: [true, false])
    func theLaterChangeOfEachFieldWinsOnBoth(deskChangesLast: Bool) async throws {
        let setup = try await InMemoryRelay().linkedAlice("desk starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        let number = try await alice.messenger.safetyNumber(with: "bob").number
        func tabletBlocksAndUnblocks() async throws {
            try await tablet.block(name: "bob")
            try await tablet.acceptRequest(name: "bob")
        }
        #expect(try await tablet.verify(name: "bob", displayed: number.digits))
        if deskChangesLast {
            try await tabletBlocksAndUnblocks()
            alice.clock.advance(seconds: 5)
            try await alice.messenger.block(name: "bob")
        } else {
            try await alice.messenger.block(name: "bob")
            alice.clock.advance(seconds: 5)
            try await tabletBlocksAndUnblocks()
        }
        _ = try await alice.messenger.sync()
        _ = try await tablet.sync()
        _ = try await alice.messenger.sync()
        for messenger in [alice.messenger, tablet] {
            let bob = try #require(try await messenger.contacts().first { $0.name == "bob" })
            #expect(bob.standing == (deskChangesLast ? .blocked : .accepted))
            #expect(bob.verification == .verified, "a block elsewhere does not take a verification away")
        }
    }

    /// A request decided on the desk before the tablet ever saw the
    /// stranger's message: the tablet files the request when the message
    /// comes, and the desk's decision (older than that) still holds, since
    /// nobody decided on the request here.
    @Test func aRequestDecidedBeforeTheOtherDeviceSawItIsDecidedThereToo() async throws {
        let setup = try await InMemoryRelay().linkedAlice("desk starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        let carol = try await carolWritesFirst(to: setup)
        _ = try await alice.messenger.sync()
        let request = try #require(try await alice.messenger.messageRequests().first)
        try await alice.messenger.acceptRequest(name: request.contact.name, renameTo: "carol")
        alice.clock.advance(seconds: 5)
        _ = try await tablet.sync()
        #expect(try await tablet.messageRequests().isEmpty)
        #expect(try await tablet.contacts().contains { $0.name == "carol" && $0.standing == .accepted })
        #expect(try await tablet.history(with: "carol").contains { $0.body == "hello alice, it is carol" })
    }

    /// A name longer than a record carries (64 characters of 25 bytes) goes
    /// cut at a character boundary; the contact still reaches the other device.
    @Test func aLongNameIsCutNotRefused() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        let carol = try await carol(on: setup.relay)
        let family = "👨‍👩‍👧‍👦"
        try await alice.messenger.addContact(name: String(repeating: family, count: 64), address: carol.address)
        _ = try await alice.messenger.flushOutbox()
        _ = try await tablet.sync()
        let added = try #require(try await tablet.contacts().first { $0.identityKey == carol.identity.publicKey.rawRepresentation })
        #expect(added.name == String(repeating: family, count: 10), "\(added.name.utf8.count) bytes")
    }

    /// Devices linked before contact records existed hold sessions on
    /// which no contacts went: after the upgrade (store migration 33 leaves
    /// every session not handed over), each side's next pass hands its
    /// contacts over, once per session, and the other gets the contacts it
    /// never heard of.
    @Test func aSessionFromBeforeRecordsCarriesEveryContactOnce() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        let carol = try await carol(on: setup.relay)
        // Carol became the desk's contact before records existed: the tablet never heard of her.
        let deskStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        let added = try deskStore.contacts.add(name: "carol", address: carol.address, identityKey: carol.identity.publicKey.rawRepresentation,
                                               at: alice.clock.now())
        _ = try deskStore.conversations.conversation(forContact: added.id, title: "carol", at: alice.clock.now())
        _ = try await alice.messenger.sync()
        _ = try await tablet.sync()
        #expect(!(try await tablet.contacts().contains { $0.name == "carol" }), "handed over already on this session")

        try deskStore.database.execute("UPDATE own_device_sessions SET contacts_handed_over = 0")
        _ = try await alice.messenger.sync()
        _ = try await tablet.sync()
        #expect(try await tablet.contacts().contains { $0.name == "carol" && $0.standing == .accepted })
        #expect(try deskStore.ownDeviceSessions.contactsHandedOver(deviceKey: setup.tabletKey.rawRepresentation))
    }

    /// A removal from another device leaves a request here alone: the
    /// stranger wrote to this device, whatever the other decided before.
    @Test func aRemovalLeavesARequestHere() async throws {
        let setup = try await InMemoryRelay().linkedAlice("desk starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        _ = try await carolWritesFirst(to: setup)
        _ = try await tablet.sync()
        let request = try #require(try await tablet.messageRequests().first)
        // The desk held carol as a contact from before (its own row, not from her message) and removes her.
        let deskStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        let held = try deskStore.contacts.add(name: "carol", address: request.contact.address, identityKey: request.contact.identityKey,
                                              at: alice.clock.now())
        _ = try deskStore.conversations.conversation(forContact: held.id, title: "carol", at: alice.clock.now())
        try deskStore.database.execute("DELETE FROM messages WHERE conversation_id IN (SELECT id FROM conversations WHERE contact_id IS NOT NULL AND contact_id != ?)", [held.id])
        alice.clock.advance(seconds: 5)
        try await alice.messenger.removeContact(name: "carol")
        _ = try await tablet.sync()
        #expect(try await tablet.messageRequests().map(\.contact.identityKey) == [request.contact.identityKey])
        #expect(try await tablet.history(with: request.contact.name).contains { $0.body == "hello alice, it is carol" })
    }

    /// Contacts from before records carry equal times on both devices (their
    /// creation): a block made on one before the upgrade still reaches the
    /// other, since on equal times a block wins.
    @Test func aBlockFromBeforeRecordsWinsOnEqualTimes() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        // Nothing in flight between the two first (the setup's own hand-overs).
        for _ in 0..<2 { _ = try await alice.messenger.sync(); _ = try await tablet.sync() }
        let deskStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        let tabletStore = try setup.tabletStore()
        let bobOnDesk = try #require(try deskStore.contacts.contact(named: "bob"))
        let bobOnTablet = try #require(try tabletStore.contacts.contact(named: "bob"))
        // As an upgrade leaves them: blocked on the desk alone, the same times on both, not handed over.
        try deskStore.contacts.setStanding(.blocked, contactId: bobOnDesk.id)
        try deskStore.contacts.setChangeTimes(.all(1_000), contactId: bobOnDesk.id)
        try tabletStore.contacts.setChangeTimes(.all(1_000), contactId: bobOnTablet.id)
        try deskStore.database.execute("UPDATE own_device_sessions SET contacts_handed_over = 0")
        _ = try await alice.messenger.sync()
        _ = try await tablet.sync()
        #expect(try await tablet.contacts().first { $0.name == "bob" }?.standing == .blocked)
    }

    /// Another device of ours may claim any time for its credential, up to
    /// the latest a time can be: the next replacement here keeps that time
    /// instead of counting past it (which trapped before).
    @Test func aCredentialReplacedAtTheLatestTimeCanBeReplacedAgain() async throws {
        let setup = try await InMemoryRelay().linkedAlice("desk starts")
        let deskStore = try MessageStore(path: setup.alice.databasePath, key: setup.alice.databaseKey)
        try deskStore.settings.set(SettingsRepository.Name.deliveryCredentialChangedAt, to: String(Int64.max))
        let before = try deskStore.settings.value(SettingsRepository.Name.deliveryCredential)
        try await setup.alice.messenger.block(name: "bob")
        #expect(try deskStore.settings.value(SettingsRepository.Name.deliveryCredential) != before)
        #expect(try deskStore.settings.value(SettingsRepository.Name.deliveryCredentialChangedAt) == String(Int64.max))
    }

    /// Only our own devices tell us about our contacts: from a contact the
    /// content is set aside with the reason.
    @Test func recordsFromAContactAreSetAside() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let mallory = IdentityKeyPair.generate(using: DeterministicRandom(seed: "mallory"))
        let record = try ContactRecord(identityKey: mallory.publicKey, stateChangedAt: 1, state: .accepted, verifiedChangedAt: 1, verified: true,
                                       nameChangedAt: 1, name: "friend")
        _ = try await alice.messenger.seal(.contacts([record]), to: "bob")
        try await alice.messenger.send(text: "still talking", to: "bob")
        let report = try await bob.messenger.sync()
        #expect(report.quarantined + report.resendRequested == 1, "\(report)")
        #expect(try await bob.messenger.quarantined().contains { $0.reason.contains("contact records from alice") })
        #expect(try await bob.messenger.contacts().map(\.name) == ["alice"])
    }
}
