import HushCrypto
import HushProtocol
import HushStore

/// What every part of the messenger works with.
///
/// The parts (`Outbox`, `Inbox`, `Contacts`, ...) are non-Sendable classes
/// that the `Messenger` actor creates and calls only from its own isolation:
/// their async methods take the caller's isolation (`#isolation`), so they
/// share the store, which is confined to one actor, without locks or hops.
struct MessengerDependencies {
    /// The account: its address, safety numbers, groups and device lists.
    let identity: IdentityKeyPair
    /// This home as a device of the account, when it is a linked one.
    let device: LocalDevice?
    /// Our key at the relay and in sessions: the device's on a linked
    /// device (§20.8, §20.10), else the account's. Envelopes are sealed to
    /// it, prekeys signed by it, the mailbox and the login are its.
    var transportIdentity: IdentityKeyPair { device?.keyPair ?? identity }
    let store: MessageStore
    let transport: any RelayTransport
    /// The relay's blob store, when the transport has one (files need it).
    var blobs: (any BlobTransfer)? { transport as? any BlobTransfer }

    /// The relay's blob store, or why files cannot travel through this transport.
    func requireBlobs() throws -> any BlobTransfer {
        guard let blobs else {
            throw MessengerError.attachmentUnavailable("this relay connection has no blob store, so files cannot be sent or fetched through it")
        }
        return blobs
    }
    let clock: any TimeSource
    let random: any RandomSource
    let events: MessengerEventHub
    /// Device lists as last decoded (`heldDeviceList`, `OwnDevices.list`).
    let decodedLists = DecodedDeviceLists()

    /// Stores `event` in the event log, in the transaction of the change it
    /// tells of (its own outside one), and publishes it with its seq once
    /// that transaction has committed: a rolled-back receive must not have
    /// told a chat screen, `hush listen`, a hook or the log about what was
    /// never stored. Live-only events (see `MessengerEvent.logEntry`) are
    /// published without a seq.
    func emit(_ event: MessengerEvent) throws {
        let now = clock.now()
        let seq = try event.logEntry.map { entry in try store.events.append(entry, at: now) }
        let record = MessengerEventRecord(seq: seq, event: event, createdAt: now)
        let events = self.events
        store.afterCommit { events.publish(record) }
    }

    /// Tells every live view on the home (this process's and, through the
    /// event log, the others') that a message the user wrote here was
    /// stored: an open `hush chat` draws it and `hush listen` prints it, as
    /// one another device of the account sent is told (`storeSentElsewhere`).
    /// A chat only told of its own sends missed those of `hush send` beside
    /// it (a walkthrough). Joins the caller's transaction.
    func tellWritten(_ messageId: Int64) throws {
        guard let stored = try store.messages.message(id: messageId) else { return }
        if let group = try store.groups.group(conversationId: stored.conversationId) {
            try emit(.groupReceived(stored, group: group.name, member: "you"))
        } else {
            try emit(.received(stored, contact: try store.contacts.contact(conversationId: stored.conversationId)?.name ?? ""))
        }
    }

    /// Publishes a live-only event (one `MessengerEvent.logEntry` does not
    /// log: the connection, a failed sync) at once, without a seq: it tells
    /// of no stored change.
    func announce(_ event: MessengerEvent) {
        assert(event.logEntry == nil, "a durable event is emitted with the change it tells of")
        events.publish(MessengerEventRecord(seq: nil, event: event, createdAt: clock.now()))
    }

    /// The contact named `name`, or `unknownContact`.
    func contact(named name: String) throws -> Contact {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        return contact
    }

    /// The conversation with `contact`, created when missing.
    func conversation(with contact: Contact) throws -> Int64 {
        try store.conversations.conversation(forContact: contact.id, title: contact.name, at: clock.now())
    }

    func loadSession(contactId: Int64) throws -> Session {
        guard let state = try store.sessions.load(contactId: contactId) else {
            // Not "remove and add the contact": removing deletes the conversation (a walkthrough after a
            // restore made while the relay was down was told to).
            throw MessengerError.missingLocalState("no session with this contact yet: one is started from the contact's keys at the relay "
                + "once it is reachable (`hush backup sessions` after a restore); removing the contact would delete its conversation")
        }
        return try Session(serialized: state)
    }
}

extension MessengerDependencies {
    /// `base`, or `base-2`, `base-3`, … : the first that names neither a
    /// contact nor a group (a contact made for someone the user did not
    /// name: a stranger, a member a group introduced, one another device
    /// of ours added).
    func freeContactName(from base: String) throws -> String {
        var name = base
        var suffix = 2
        while try store.contacts.contact(named: name) != nil || store.groups.group(named: name) != nil {
            name = base + "-\(suffix)"
            suffix += 1
        }
        return name
    }

    /// The device list held of `contact` (checked when it was accepted, so
    /// decoding only reads it again; one that no longer decodes is a
    /// damaged store: a cause on our side).
    func heldDeviceList(of contact: Contact) throws -> DeviceList? {
        guard let bytes = try store.contactDeviceLists.list(contactId: contact.id) else { return nil }
        let account = try IdentityKey(rawRepresentation: contact.identityKey)
        do throws(ProtocolError) {
            return try decodedLists.decode(bytes, account: account)
        } catch {
            throw MessengerError.missingLocalState("the device list kept for \(contact.name) no longer reads: \(error.description)")
        }
    }

    /// When another home of this key registered with the relay (ms), as this
    /// home learned it (`HomeRegistration`); nil while the relay's is ours.
    /// A replaced home seals nothing more, receipts included.
    func homeReplacedAt() -> Int64? {
        (try? store.settings.value(SettingsRepository.Name.replacedAt)).flatMap { $0 }.flatMap { Int64($0) }
    }

    /// Whether this home was restored from a backup and has not registered since (§19.4).
    var isRestoredNotRegistered: Bool {
        (try? store.settings.value(SettingsRepository.Name.registration)) == SettingsRepository.Name.restoredRegistration
    }

    /// Refuses, before anything the user wrote or changed is sealed, in a
    /// home that cannot deliver it (§19.4): `.homeReplaced` once another
    /// home replaced this one, `.restoredNotRegistered` in a restored home
    /// not registered yet (no session to seal on). Asks the relay nothing.
    /// A walkthrough found a reaction there refused with advice about
    /// removing the contact, and a group created and queued for good.
    func requireHomeInUse() throws(MessengerError) {
        if let replacedAt = homeReplacedAt() { throw replacedError(at: replacedAt) }
        if isRestoredNotRegistered { throw .restoredNotRegistered }
    }

    /// What a home replaced at `time` says: when, and how many messages it sent since have no receipt.
    func replacedError(at time: Int64) -> MessengerError {
        .homeReplaced(at: time, unconfirmedSent: (try? store.messages.unconfirmedOutgoingCount(since: time)) ?? 0)
    }

    /// When the account's device list this device holds revoked it
    /// (§20.14); nil while it is active. The first device, whose key at the
    /// relay is the account key, is the list's entry marked as keeping it
    /// (§20.13); a list from before the mark names no such entry, and the
    /// first device is then taken as active.
    func thisDeviceRevokedAt() throws -> UInt64? {
        guard let list = try ownDeviceList() else { return nil }
        let entry = if let device { list.entry(DeviceID(deviceKey: device.keyPair.publicKey.signingKey)) } else { list.accountKeyDevice }
        guard let entry, !entry.isActive else { return nil }
        return entry.revokedAt
    }

    /// The account's latest device list this device keeps, as last decoded
    /// (`decodedLists`); nil for an account without one.
    func ownDeviceList() throws -> DeviceList? {
        guard let bytes = try store.deviceLists.latest() else { return nil }
        do throws(ProtocolError) {
            return try decodedLists.decode(bytes, account: identity.publicKey)
        } catch {
            throw MessengerError.missingLocalState("this account's device list no longer reads: \(error.description)")
        }
    }

    /// Refuses a large group's message or change on a linked device: large
    /// groups stay with the account key (PROTOCOL §20.17, "Devices in Hush
    /// today"), since a member's chain there is derived from the state, one
    /// per account, and two devices sending under it would reuse its keys.
    func requireLargeGroupDevice(_ group: String) throws {
        guard device == nil else {
            throw MessengerError.groupRefused("'\(group)' is a large group, and large groups stay on the account's first device in this version (a member's key there is one per account): create, send to and change them there")
        }
    }

    /// How starting a session with a device from its bundle went.
    enum DeviceSessionStart {
        case started(Session)
        /// The relay has no bundle for the key (the first device's own device key, §20.13).
        case noBundle
        /// The bundle could not be had or used now: tried again later.
        case notNow
    }

    /// A session with the device whose key at the relay is `key`, started
    /// from the relay's bundle with this home's key: a linked device's with
    /// the account's certificate (a device prekey message, §20.10), the
    /// first device's with the account key. Nothing is stored.
    func startSession(isolation: isolated (any Actor)? = #isolation, withDevice key: IdentityKey) async -> DeviceSessionStart {
        let bundle: PrekeyBundle
        do {
            bundle = try await transport.fetchBundle(for: key)
        } catch .rejected(404, _) {
            return .noBundle
        } catch {
            return .notNow
        }
        do {
            if let device {
                return .started(try Session.initiate(device: device.keyPair, certificate: device.certificate, to: key.signingKey,
                                                     bundle: bundle, using: random))
            }
            return .started(try Session.initiate(device: identity, certificate: nil, to: key.signingKey, bundle: bundle, using: random))
        } catch {
            return .notNow
        }
    }

    /// The relay's device directories, when the transport reads them.
    var directory: (any DeviceDirectoryLookup)? { transport as? any DeviceDirectoryLookup }
}
