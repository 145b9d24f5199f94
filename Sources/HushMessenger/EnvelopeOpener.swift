import HushCrypto
import HushProtocol
import HushStore

/// Opens one envelope: the sealed-sender layer, the sender's contact (a new
/// message request for a stranger), the session (accepting a first message's
/// handshake, or settling crossed ones), the ratchet with its skipped keys;
/// then hands the content to `ContentApplier`. Runs inside the caller's
/// transaction: the caller commits the result or rolls everything back.
final class EnvelopeOpener {
    private let dependencies: MessengerDependencies
    private let contacts: Contacts
    private let prekeys: Prekeys
    private let credentials: DeliveryCredentials
    private let senderKeys: GroupSenderKeys
    private let applier: ContentApplier
    private let deviceLists: ContactDeviceLists
    private let ownDevices: OwnDevices
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, contacts: Contacts, prekeys: Prekeys, credentials: DeliveryCredentials,
         senderKeys: GroupSenderKeys, applier: ContentApplier, deviceLists: ContactDeviceLists, ownDevices: OwnDevices) {
        self.dependencies = dependencies
        self.contacts = contacts
        self.prekeys = prekeys
        self.credentials = credentials
        self.senderKeys = senderKeys
        self.applier = applier
        self.deviceLists = deviceLists
        self.ownDevices = ownDevices
    }

    /// Decrypts `envelope` and applies its content.
    func open(_ envelope: MailboxEnvelope, ephemeral: Bool = false) throws -> OpenResult {
        if GroupEnvelope.isGroupEnvelope(envelope.bytes) {
            guard !ephemeral else { throw MessengerError.protocolFailure("a group message cannot travel as an ephemeral envelope") }
            let opened = try senderKeys.open(envelope) { content, contact, group in
                try applier.applyGroup(content, from: contact, group: group, envelope: envelope)
            } applyingOwn: { content, group in
                try applier.applySentElsewhere(content, conversation: group.conversationId, label: group.name, inGroup: true, envelope: envelope)
            } applyingLarge: { content, author, group in
                try applier.applyLargeGroup(content, from: author, group: group, envelope: envelope)
            }
            return opened ? .applied : .droppedForFormerGroup
        }
        let opened = try SealedSender.open(envelope.bytes, recipient: dependencies.transportIdentity, acceptingDevicePrekeyMessages: true)
        if let own = try ownDevices.sender(of: opened) {
            guard !ephemeral else { throw MessengerError.protocolFailure("nothing travels between this account's devices as an ephemeral envelope") }
            try openFromOwnDevice(opened, device: own, envelope: envelope)
            return .applied
        }
        let now = dependencies.clock.now()
        // A contact's device (§20.10) is filed under its account: the one its
        // certificate names, or the one we hold its session for.
        let device = try senderDevice(opened)
        let contact = try contacts.contactForSender(device?.account ?? opened.sender, at: now)
        // Checked before the ratchet: a blocked sender's session does not move,
        // so unblocking later finds it where it was.
        if contact.standing == .blocked { return .droppedFromBlocked }
        if let device {
            try checkListed(device.key, of: contact)
        } else if try dependencies.accountKeyRetired(contact) {
            throw MessengerError.protocolFailure("from \(contact.name)'s account key, retired when the device that kept it was revoked")
        }
        let sessions = SessionSlot(store: store, contactId: contact.id, deviceKey: device?.key.rawRepresentation)
        let session: Session
        var consumedPrekeys: [(PrekeyKind, UInt32)] = []
        // A failed read is our database's fault and is thrown (the envelope
        // stays at the relay); a stored state that no longer decodes counts
        // as no session, and the handshake starts a new one.
        let current = try sessions.load().flatMap { try? Session(serialized: $0) }
        if let handshake = opened.handshake, current.map({ !$0.matches(handshake) }) ?? true {
            guard !ephemeral else { throw MessengerError.protocolFailure("typing indicator without a session") }
            try Self.refuseLosingCrossedHandshake(handshake, current: current)
            session = try acceptSession(opened, handshake: handshake)
            if device == nil {
                // A new session may come from a peer who lost everything (a new
                // database): whatever we gave them before, give it again. (A
                // new device of an account is not that: the account still has it.)
                try store.contacts.setCredentialSent(nil, contactId: contact.id)
                try store.contacts.setProfileSent(nil, contactId: contact.id)
                try store.contacts.setDeviceListSent(nil, contactId: contact.id)
            }
            // Our chains, which a new device of the account does not hold yet (§20.17).
            try senderKeys.handOverOwnChains(to: contact)
            if let oneTime = handshake.oneTimePrekeyID { consumedPrekeys.append((.oneTimeX25519, oneTime)) }
            if handshake.kemPrekeyKind == .oneTimeKEM { consumedPrekeys.append((.oneTimeKEM, handshake.kemPrekeyID)) }
        } else if let current {
            // Decoded once: decoding derives the ratchet's public keys (an
            // X25519 scalar multiplication each), the dearest part of a message.
            session = current
        } else if device == nil {
            session = try dependencies.loadSession(contactId: contact.id)
        } else {
            throw MessengerError.missingLocalState("no session with this device of \(contact.name): it is asked to start one")
        }
        let skipped = try PersistentSkippedKeys(store: store, contactId: contact.id, now: now)
        // The skipped keys change in this transaction, as the ratchet goes;
        // a failure below rolls them back with everything else.
        let plaintext = try session.open(opened, skippedKeys: skipped, using: dependencies.random)
        let content = try Content(decoding: plaintext)
        // The ephemeral path stores nothing and is acknowledged to no one:
        // anything but typing arriving that way is refused, not applied.
        if ephemeral, content.body != .typingStarted, content.body != .typingStopped {
            throw MessengerError.protocolFailure("only typing indicators travel as ephemeral envelopes")
        }
        try sessions.save(session, at: now)
        try prekeys.consume(consumedPrekeys)
        try applier.apply(content, from: contact, device: device?.key, envelope: envelope)
        if !ephemeral {
            // Whoever writes to us (a stranger, a contact who added us first, or
            // the contact whose session we started, answering) gets what it needs
            // to pass the relay's stranger rate limit, once per credential; the
            // relay never learns which contact presents it.
            try credentials.handOver(to: contact)
        }
        return .applied
    }

    /// An envelope from another device of our own account (§20.11): on the
    /// session with that device (accepting its handshake as a contact's),
    /// carrying our device list, a sent transcript, a group's state, chain
    /// or leave (§20.17), contact records or our delivery credential
    /// (§20.16), our recovery key (§20.14), and nothing else.
    private func openFromOwnDevice(_ opened: OpenedEnvelope, device: IdentityKey, envelope: MailboxEnvelope) throws {
        let now = dependencies.clock.now(), key = device.rawRepresentation
        let current = try store.ownDeviceSessions.load(deviceKey: key).flatMap { try? Session(serialized: $0) }
        var consumedPrekeys: [(PrekeyKind, UInt32)] = []
        let session: Session
        var startsSession = false
        if let handshake = opened.handshake, current.map({ !$0.matches(handshake) }) ?? true {
            try Self.refuseLosingCrossedHandshake(handshake, current: current)
            session = try acceptSession(opened, handshake: handshake)
            if let oneTime = handshake.oneTimePrekeyID { consumedPrekeys.append((.oneTimeX25519, oneTime)) }
            if handshake.kemPrekeyKind == .oneTimeKEM { consumedPrekeys.append((.oneTimeKEM, handshake.kemPrekeyID)) }
            // A new session with another device of ours: it may lack our groups and chains (§20.17).
            try senderKeys.handOverGroupsToOwnDevices()
            startsSession = true
        } else if let current {
            session = current
        } else {
            // Lost here (a restored home, a state that no longer reads): a new session starts after this pass.
            ownDevices.sessionLost(with: device)
            throw MessengerError.protocolFailure("from a device of this account on a session this device no longer holds: a new one is started")
        }
        // The session's row names its skipped keys, so it exists before they do (all in this transaction).
        let owner = try store.ownDeviceSessions.save(state: session.serialized(), deviceKey: key, at: now)
        let skipped = try PersistentSkippedKeys(keys: store.ownDeviceSkippedKeys, owner: owner, now: now)
        let content = try Content(decoding: session.open(opened, skippedKeys: skipped, using: dependencies.random))
        try store.ownDeviceSessions.save(state: session.serialized(), deviceKey: key, at: now)
        try prekeys.consume(consumedPrekeys)
        // Our contacts go to that device on the new session after this pass (§20.16).
        if startsSession { try store.ownDeviceSessions.setContactsHandedOver(false, deviceKey: key) }
        switch content.body {
        case let .deviceList(list):
            try ownDevices.adopt(list)
        case let .sentTranscript(recipient, inner):
            guard let contact = try store.contacts.contact(identityKey: recipient.rawRepresentation) else {
                throw MessengerError.protocolFailure("a sent transcript of a message to \(recipient.address), who is not a contact on this device: add them here too")
            }
            try applier.applySentElsewhere(inner, conversation: dependencies.conversation(with: contact), label: contact.name, envelope: envelope,
                                           contact: contact)
        case let .senderKeyDistribution(distribution):
            try senderKeys.applyOwnDeviceDistribution(distribution, device: device)
        case let .groupUpdate(state):
            try applier.applyGroupStateFromOwnDevice(state, storedAt: envelope.relayTimestamp)
        case let .groupLeave(groupID, _):
            try applier.applyOwnLeave(groupID: groupID)
        case let .contacts(records):
            try applier.applyContactRecords(records, own: ownDevices)
        case let .deliveryCredential(token):
            // The account's credential, replaced on that device (§20.16); its `sent at` says when.
            try credentials.adoptFromOwnDevice(token, changedAt: content.sentAt)
        case let .recoveryKey(listCounter, recoveryKey):
            // The account's key that replaced the one a device revoked meanwhile holds (§20.14).
            try OwnRecoveryKey.adopt(recoveryKey, listCounter: listCounter, from: key, dependencies)
        case let .decryptionError(digest):
            // That device could not open what we sealed to it (it lost our session): sent again (§20.11).
            try ownDevices.answerDecryptionError(digest, from: key)
        default:
            throw MessengerError.protocolFailure("another device of this account sent a content that only goes to contacts")
        }
    }

    /// Whom to ask to send an envelope that could not be used again
    /// (docs/PROTOCOL.md §10.1, §20.12): the sender its sealed layer names
    /// (a contact's device, with its account), or, for
    /// a group envelope, the member whose chain signed a message whose key
    /// is gone (`GroupSenderKeys.memberOfUnreadableMessage`). Nil when the
    /// envelope names nobody.
    /// When `envelope` came from another device of our own account (not a
    /// group envelope), asks that device to send it again on the session we
    /// hold with it (§20.11) and returns whether it was asked; nil when it
    /// came from no device of ours. Its own savepoint: a failed seal is
    /// rolled back alone, inside the caller's transaction.
    func askOwnDevice(about envelope: [UInt8]) -> Bool? {
        guard !GroupEnvelope.isGroupEnvelope(envelope),
              let opened = try? SealedSender.open(envelope, recipient: dependencies.transportIdentity, acceptingDevicePrekeyMessages: true),
              (try? ownDevices.peers().contains(opened.sender.rawRepresentation)) == true else { return nil }
        return (try? store.write { _ in try ownDevices.reportUndecryptable(envelope, to: opened.sender.rawRepresentation) }) ?? false
    }

    func senderToAsk(about envelope: [UInt8]) -> (account: IdentityKey, device: IdentityKey?)? {
        if GroupEnvelope.isGroupEnvelope(envelope) { return senderKeys.memberOfUnreadableMessage(envelope) }
        guard let opened = try? SealedSender.open(envelope, recipient: dependencies.transportIdentity, acceptingDevicePrekeyMessages: true)
        else { return nil }
        if let device = try? senderDevice(opened) { return (device.account, device.key) }
        return (opened.sender, nil)
    }

    /// The sending device and its account, when the sender is a contact's
    /// device rather than an account (§20.10): a device prekey message
    /// names both (its certificate verified when it was read); a message on
    /// a session a device started is known by the device key. Nil for an
    /// account's own key.
    private func senderDevice(_ opened: OpenedEnvelope) throws -> (key: IdentityKey, account: IdentityKey)? {
        if let certificate = opened.deviceCertificate { return (opened.sender, certificate.account) }
        guard let contactId = try store.deviceSessions.contactId(deviceKey: opened.sender.rawRepresentation),
              let contact = try store.contacts.contact(id: contactId) else { return nil }
        return (opened.sender, try IdentityKey(rawRepresentation: contact.identityKey))
    }

    /// §20.10 receiving, step 1: a device of an account whose list we hold
    /// must be active in it. Revoked: refused. Absent: our list may be older
    /// than the sender's, so the envelope waits (a cause on our side) and
    /// the contact's directory is read after this pass.
    private func checkListed(_ device: IdentityKey, of contact: Contact) throws {
        guard let list = try dependencies.heldDeviceList(of: contact) else { return }
        switch list.entry(DeviceID(deviceKey: device.signingKey))?.isActive {
        case true?:
            return
        case false?:
            throw MessengerError.protocolFailure("from a device \(contact.name) revoked")
        case nil:
            // Not a mark in the store: this receive's transaction is rolled back when it throws.
            deviceLists.needsRefresh(contact)
            throw MessengerError.missingLocalState("from a device of \(contact.name) that the device list held does not name yet: it waits for the newer list")
        }
    }

    /// Both sides started a session at once ("crossed" first messages): both
    /// keep the one whose handshake id is lower, so they converge. That only
    /// applies when ours has sealed something: a session that `contact add`
    /// started but never used cannot have reached the peer, so the peer will
    /// never switch to it and we must take theirs.
    private static func refuseLosingCrossedHandshake(_ handshake: HandshakeInit, current: Session?) throws {
        guard let current, current.pendingHandshake != nil,
              current.ratchet.sendCount > 0 || current.ratchet.previousSendCount > 0,
              !handshakeWins(handshake.ephemeralKey.rawRepresentation, over: current.handshakeID) else { return }
        throw MessengerError.protocolFailure("crossed first messages: both sides started a session at once and the peer's lost the tie-break; the peer is asked to resend it on ours")
    }

    /// The tie-break for crossed handshakes: the lexicographically lower id wins.
    static func handshakeWins(_ incoming: [UInt8], over ours: [UInt8]) -> Bool {
        incoming.lexicographicallyPrecedes(ours)
    }

    private func acceptSession(_ opened: OpenedEnvelope, handshake: HandshakeInit) throws -> Session {
        let signed = try prekeys.privatePrekey(.signedX25519, id: handshake.signedPrekeyID)
        let oneTime = try handshake.oneTimePrekeyID.map { try prekeys.privatePrekey(.oneTimeX25519, id: $0) }
        let kem = try prekeys.privatePrekey(handshake.kemPrekeyKind, id: handshake.kemPrekeyID)
        return try Session.accept(identity: dependencies.transportIdentity, opened: opened, signedPrekey: signed, oneTimePrekey: oneTime,
                                  kemPrekey: kem)
    }
}
