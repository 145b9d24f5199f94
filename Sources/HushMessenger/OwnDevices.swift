import HushCrypto
import HushProtocol
import HushStore

/// This account's other devices (docs/PROTOCOL.md §20.11, §20.12): what one
/// device sends to a contact goes to each of the others as a sent
/// transcript, so every device shows the same history, and the account's
/// device list goes before it to a device that lacks the current one.
/// Sessions between our own devices are kept apart from contacts'
/// (`own_device_sessions`): our account is no contact.
///
/// Our other devices are the active devices of the list we keep, by their
/// keys at the relay, and on a linked device also the account key, which
/// stands for the first device (§20.13). A device the relay has no bundle
/// for (the first device's own device key) is reached through the account
/// key, as contacts reach it.
///
/// Of two devices, the one whose key at the relay is lower (bytewise)
/// starts the session, after a pass, and sends our device list on it at
/// once; the other holds the session from its next pass. Both starting at
/// once would cross (§9.3.1), and between our own devices nothing resends
/// the envelope that loses the tie-break.
final class OwnDevices {
    private let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }
    /// Devices the relay had no bundle for: asked again after a while, not at every pass.
    private var withoutBundle = BundleMisses()
    /// Devices of ours that wrote on a session this device no longer holds
    /// (restored from a backup, which keeps no session; a state that no
    /// longer reads): this device starts a new one after the pass, whatever
    /// the order of the keys. In memory: the receive that marks it is rolled
    /// back, and the envelope marks it again at the next pass.
    private var lostSessions: Set<[UInt8]> = []
    /// Set when a device of ours that our list does not name yet wrote to
    /// us: our directory is read after the pass (§20.9), as for a contact.
    private var listMayBeBehind = false

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
    }

    /// The account's device list as kept here; nil when it never linked a
    /// device. Decoded once per list (`DecodedDeviceLists`): it is read for
    /// every envelope that arrives (is its sender a device of ours?).
    func list() throws -> DeviceList? {
        try dependencies.ownDeviceList()
    }

    /// Throws `deviceRevoked` when the account's list we hold revokes this
    /// device (§20.14): what it would write is set aside by every contact
    /// holding that list, so nothing is written.
    func requireThisDeviceActive() throws {
        if let revokedAt = try dependencies.thisDeviceRevokedAt() { throw MessengerError.deviceRevoked(revokedAt: revokedAt) }
    }

    /// Whether `key` is a device of the account's list, active or revoked.
    func isListedDevice(_ key: [UInt8]) throws -> Bool {
        try list()?.entries.contains { $0.key.rawRepresentation == key } ?? false
    }

    /// The keys at the relay of our other active devices: on a linked
    /// device also the account key, while the device that keeps it is active
    /// (§20.13; once it is revoked the account key is retired, §20.14).
    func peers() throws -> [[UInt8]] {
        guard let list = try list() else { return [] }
        let me = dependencies.transportIdentity.publicKey.rawRepresentation
        let account = dependencies.identity.publicKey.rawRepresentation
        let devices = list.activeDevices.map(\.key.rawRepresentation).filter { $0 != me && $0 != account }
        return me == account || list.retiresAccountKey ? devices : [account] + devices
    }

    /// Seals `content` (just sealed for `contact`) as a sent transcript
    /// (§20.11) to each of our other devices that we hold a session with,
    /// and queues each for that device's mailbox. A content the transcript
    /// cannot carry in its 65,536 bytes (a text near the limit, wrapped with
    /// the recipient's key) is not copied: the contact still gets it. Joins
    /// the caller's transaction.
    func sealTranscript(of content: Content, for contact: Contact, conversation: Int64) throws {
        let peers = try peers()
        guard !peers.isEmpty else { return }
        // A removal that found no conversation to go under goes first (§20.16).
        try OwnContactRecords(dependencies, own: self).sendWaitingRemovals()
        let transcript = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()),
                                 body: .sentTranscript(recipient: try IdentityKey(rawRepresentation: contact.identityKey), content))
        guard let encoded = try? transcript.encoded() else { return }
        for peer in peers { try seal(encoded, to: peer, conversation: conversation) }
    }

    /// Seals `encoded` (a content for our other devices themselves: a
    /// group's state, our chain) to each of them that we hold a session
    /// with. Joins the caller's transaction.
    func sealToEveryDevice(_ encoded: [UInt8], conversation: Int64) throws {
        for peer in try peers() { try seal(encoded, to: peer, conversation: conversation) }
    }

    /// Seals every list of ours each of our other devices was not sent yet
    /// (after a link or a revocation, §20.14), filed under the newest
    /// conversation and, as at a session's start, not marked as sent: the
    /// next transcript carries the lists again if this request goes with a
    /// removed conversation. Joins the caller's transaction.
    func handOverLists() throws {
        let lasting = try store.conversations.newestLastingId()
        guard let conversation = try lasting ?? store.conversations.newestId() else { return }
        for peer in try peers() {
            // After a revocation, the recovery key that replaced the one the revoked device holds, after
            // the list that revokes it (§20.14); never to the revoked device (not a peer). Marked as sent
            // only under a conversation that declining a request cannot remove.
            let key = try OwnRecoveryKey.owed(to: peer, dependencies)
            if try seal(key?.content, to: peer, conversation: conversation, markingListSent: false), let key, lasting != nil {
                try store.ownDeviceSessions.setRecoveryKeySent(key.counter, deviceKey: peer)
            }
        }
        for revoked in try revokedSessionKeys() {
            // What this device queued for it (the first device's: the account key) goes nowhere now,
            // before the lists, which tell that device so.
            try RetiredAccountKey(dependencies).dropQueued(for: revoked)
            // It learns it from us (it could read our directory anyway), so it stops writing what every
            // contact would set aside; then its session ends (§20.14). The first device's session is
            // the account key's (§20.13).
            guard try store.ownDeviceSessions.load(deviceKey: revoked).map({ $0.count > 0 }) == true else { continue }
            try seal(nil, to: revoked, conversation: conversation)
            try store.ownDeviceSessions.end(deviceKey: revoked)
        }
    }

    /// The keys at the relay of our devices the list revokes: each revoked
    /// device's key, and the account key once the device that kept it is
    /// revoked (the first device's sessions are the account key's, §20.13).
    private func revokedSessionKeys() throws -> [[UInt8]] {
        guard let list = try list() else { return [] }
        let revoked = list.entries.filter { !$0.isActive }.map(\.key.rawRepresentation)
        let account = dependencies.identity.publicKey.rawRepresentation
        return list.retiresAccountKey && dependencies.transportIdentity.publicKey.rawRepresentation != account ? revoked + [account] : revoked
    }

    /// Seals `encoded` (nil: nothing but the lists) on the session with our
    /// device `peer`, after every list of ours it was not sent yet (in
    /// order, as a contact gets them), and queues each envelope for its
    /// mailbox. A device without a session yet gets nothing: returns whether
    /// it was sealed.
    @discardableResult
    func seal(_ encoded: [UInt8]?, to peer: [UInt8], conversation: Int64, markingListSent: Bool = true,
              resendable: Bool = true) throws -> Bool {
        guard let state = try store.ownDeviceSessions.load(deviceKey: peer), let session = try? Session(serialized: state) else { return false }
        let random = dependencies.random, now = dependencies.clock.now()
        var contents: [[UInt8]] = []
        let sent = try store.ownDeviceSessions.listSent(deviceKey: peer)
        if let current = try store.deviceLists.latestCounter(), sent != Int64(clamping: current) {
            // Every list since the last one sent, or every list kept to a device sent none: one
            // signed by a device the other does not know yet verifies after the lists before it.
            for (_, list) in try store.deviceLists.lists(after: UInt64(clamping: sent ?? 0)) {
                contents.append(try Content(id: MessageID.random(using: random), sentAt: UInt64(now), body: .deviceList(list)).encoded())
            }
            if markingListSent { try store.ownDeviceSessions.setListSent(Int64(clamping: current), deviceKey: peer) }
        }
        let lists = contents.count
        if let encoded { contents.append(encoded) }
        for (index, content) in contents.enumerated() {
            let envelope = try session.seal(content, using: random)
            let requestID = Hex.encode(random.bytes(16))
            try store.outbox.enqueue(requestId: requestID, messageId: nil, conversationId: conversation, sealedPayload: envelope, at: now)
            try store.groups.addRecipients([peer], requestId: requestID)
            // Kept to send again should that device not open it (§20.11); lists go again whole at its next session.
            if index >= lists, resendable {
                try store.resends.recordOwnDeviceContent(digest: SHA256.hash(envelope), deviceKey: peer, content: content, at: now)
            }
        }
        try store.ownDeviceSessions.save(state: session.serialized(), deviceKey: peer, at: now)
        return true
    }

    /// Our device `peer` could not open the envelope with `digest` (a
    /// session it lost: restored from a backup): the content it carried is
    /// sealed again on the session we hold with it now (the one its error
    /// came on), once per session (§20.11, as §10.1 for a contact). An
    /// envelope we did not seal, or sealed over 30 days ago, earns nothing.
    /// Joins the caller's transaction.
    func answerDecryptionError(_ digest: [UInt8], from peer: [UInt8]) throws {
        guard let state = try store.ownDeviceSessions.load(deviceKey: peer), let session = try? Session(serialized: state),
              let content = try store.resends.takeOwnDeviceContentToResend(forEnvelope: digest, deviceKey: peer, onSession: session.handshakeID,
                                                                            at: dependencies.clock.now()),
              let conversation = try store.conversations.newestId() else { return }
        try seal(content, to: peer, conversation: conversation)
    }

    /// Asks our device `peer` to send again what it sealed in `envelope`,
    /// which we set aside (§20.11): a decryption error on the session we
    /// hold with it. False when we hold none yet (a session this device
    /// lost starts after the pass: `reportSetAside` asks then). Joins the
    /// caller's transaction.
    @discardableResult
    func reportUndecryptable(_ envelope: [UInt8], to peer: [UInt8]) throws -> Bool {
        guard let conversation = try store.conversations.newestId() else { return false }
        let error = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()),
                            body: .decryptionError(envelopeDigest: SHA256.hash(envelope)))
        // Not kept to send again: a lost error is asked for again by the next envelope that fails.
        return try seal(error.encoded(), to: peer, conversation: conversation, markingListSent: false, resendable: false)
    }

    /// Once a session replaced one this device lost with `peer`: asks it
    /// for every envelope of its that was set aside here (they were sealed
    /// on the lost session, and nothing could ask when they arrived).
    private func reportSetAside(from peer: [UInt8]) throws {
        let transport = dependencies.transportIdentity
        for envelope in try store.quarantine.setAsideEnvelopes() {
            guard !GroupEnvelope.isGroupEnvelope(envelope),
                  let opened = try? SealedSender.open(envelope, recipient: transport, acceptingDevicePrekeyMessages: true),
                  opened.sender.rawRepresentation == peer else { continue }
            try reportUndecryptable(envelope, to: peer)
        }
    }

    /// Seals the recovery key a revocation made to our device `peer` when it
    /// was not sent it yet (§20.14), filed under a lasting conversation (with
    /// none, it waits), and marks it sent. Joins the caller's transaction.
    func sendRecoveryKeyIfOwed(to peer: [UInt8]) throws {
        guard let key = try OwnRecoveryKey.owed(to: peer, dependencies), let conversation = try store.conversations.newestLastingId(),
              try seal(key.content, to: peer, conversation: conversation) else { return }
        try store.ownDeviceSessions.setRecoveryKeySent(key.counter, deviceKey: peer)
    }

    /// Starts a session, from the relay's bundle, with each of our other
    /// devices that has none and whose key at the relay is above ours, and
    /// with each that wrote on a session this device lost, and reads our
    /// directory first when a device our list does not name wrote to us.
    /// Best effort: a device whose bundle cannot be had now is tried again
    /// after a later pass.
    func startMissingSessions(isolation: isolated (any Actor)? = #isolation) async {
        if listMayBeBehind { await readOwnDirectory() }
        let me = dependencies.transportIdentity.publicKey.rawRepresentation
        guard let peers = try? peers() else { return }
        await reachContacts()
        for peer in peers where withoutBundle.shouldAsk(peer, now: dependencies.clock.now()) {
            let lost = lostSessions.contains(peer)
            guard lost || me.lexicographicallyPrecedes(peer), (try? needsSession(peer)) == true,
                  let key = try? IdentityKey(rawRepresentation: peer) else { continue }
            let session: Session
            switch await dependencies.startSession(withDevice: key) {
            case let .started(started): session = started
            case .noBundle: withoutBundle.missed(peer, at: dependencies.clock.now()); continue
            case .notNow: continue
            }
            try? store.withinWrite { store in
                // The device may have started one first meanwhile: keep that.
                guard try needsSession(peer) else { return }
                try store.ownDeviceSessions.save(state: session.serialized(), deviceKey: peer, at: dependencies.clock.now())
                // Our list goes at once, as the session's first content (§20.11): the other device then
                // holds the session before either has anything to copy, and its own transcripts go on it.
                // Filed under the newest conversation; with none, there is nothing to copy yet either.
                // Not marked as sent: a request whose conversation is removed before it is posted goes
                // with it, and the list then goes again before the next transcript.
                if let conversation = try store.conversations.newestId() {
                    try seal(nil, to: peer, conversation: conversation, markingListSent: false)
                }
                // What it sealed on the session this device lost was set aside here: it is asked for again.
                if lost { try reportSetAside(from: peer) }
                // The groups we are in, and our chains, go after it (§20.17): the device may not hold them.
                try OwnSenderChains(dependencies).handOverGroupsToOwnDevices()
                // Our contacts go below, as to every device that has not had them on its session (§20.16).
                try store.ownDeviceSessions.setContactsHandedOver(false, deviceKey: peer)
            }
            if (try? needsSession(peer)) == false { lostSessions.remove(peer) }
        }
        // Our contacts to each device of ours that has not had them on the session we hold with it: a new
        // session (either side started it), or one from before contact records (§20.16). The newer of each
        // field wins on both sides.
        for peer in peers where (try? needsSession(peer)) == false && (try? store.ownDeviceSessions.contactsHandedOver(deviceKey: peer)) == false {
            try? store.withinWrite { store in
                // Another process on this home may have handed over meanwhile.
                guard try !store.ownDeviceSessions.contactsHandedOver(deviceKey: peer) else { return }
                try OwnContactRecords(dependencies, own: self).handOver(to: peer)
            }
        }
        // The recovery key a revocation made, to each device of ours not sent it yet (§20.14): the
        // revocation's announcement may have failed, or found no conversation to file it under. Read
        // first, so a pass opens no write for it when nothing is owed (the usual case: no key at all).
        if let kept = (try? store.recoveryKeys.current())?.listCounter {
            for peer in peers where (try? needsSession(peer)) == false
                && (try? store.ownDeviceSessions.recoveryKeySent(deviceKey: peer)).map({ $0 < kept }) == true {
                try? store.withinWrite { _ in try sendRecoveryKeyIfOwed(to: peer) }
            }
        }
    }

    /// How many contacts `reachContacts` starts a session with in one pass.
    static let contactsReachedPerPass = 8

    /// Marks the contact `id` (added or accepted by another device of ours)
    /// for a session from the relay's bundle after this pass, when we hold
    /// none; kept in the store, so a run that ends first leaves it for the
    /// next. Joins the caller's transaction.
    func reachContact(_ id: Int64) throws {
        var waiting = try contactsToReach()
        guard waiting.insert(id).inserted else { return }
        try store.settings.set(SettingsRepository.Name.contactsToReach, to: waiting.sorted().map(String.init).joined(separator: ","))
    }

    /// Starts the account-key session with each contact `reachContact`
    /// marked that has none (its devices' sessions follow, from the list its
    /// directory gave). Best effort: one that cannot start now stays marked.
    private func reachContacts(isolation: isolated (any Actor)? = #isolation) async {
        guard let waiting = try? contactsToReach(), !waiting.isEmpty else { return }
        let starter = SessionStarter(dependencies)
        var reached: Set<Int64> = []
        // A few per pass: this runs when pushed envelopes settle too, and each is a bundle fetched from the relay.
        for id in waiting.sorted().prefix(Self.contactsReachedPerPass) {
            guard let contact = try? store.contacts.contact(id: id), contact.standing == .accepted, contact.pendingIdentityKey == nil,
                  let key = try? IdentityKey(rawRepresentation: contact.identityKey) else {
                reached.insert(id)
                continue
            }
            if (try? await starter.contactWithSession(for: key)) != nil { reached.insert(id) }
        }
        try? store.withinWrite { _ in
            // Read again: the pass may have marked more meanwhile.
            let left = try contactsToReach().subtracting(reached)
            try store.settings.set(SettingsRepository.Name.contactsToReach, to: left.isEmpty ? nil : left.sorted().map(String.init).joined(separator: ","))
        }
    }

    private func contactsToReach() throws -> Set<Int64> {
        Set((try store.settings.value(SettingsRepository.Name.contactsToReach) ?? "").split(separator: ",").compactMap { Int64($0) })
    }

    /// Whether we hold no usable session with our device `peer`: none, or
    /// one whose state no longer reads. An ended one (revoked) is not
    /// started again.
    private func needsSession(_ peer: [UInt8]) throws -> Bool {
        guard let state = try store.ownDeviceSessions.load(deviceKey: peer) else { return true }
        return state.count > 0 && (try? Session(serialized: state)) == nil
    }

    /// Marks our device `device` as one that wrote on a session we no
    /// longer hold (see `lostSessions`).
    func sessionLost(with device: IdentityKey) {
        lostSessions.insert(device.rawRepresentation)
    }

    /// Reads our own directory (§20.9) and keeps the list there when it
    /// follows ours: a device linked elsewhere wrote to us before its list
    /// reached us. Best effort.
    private func readOwnDirectory(isolation: isolated (any Actor)? = #isolation) async {
        guard let directory = dependencies.directory,
              let list = try? await directory.deviceList(of: dependencies.identity.publicKey) else { return }
        listMayBeBehind = false
        try? store.withinWrite { _ in try adopt(list.encoded) }
    }

    /// The device of ours that sealed `opened`, or nil when the sender is
    /// not one of our devices: a device prekey message certified by our
    /// account, the account key itself on a linked device (the first
    /// device, §20.13), or a device we hold a session with. A device our
    /// list has revoked is refused; one it does not name yet waits (not
    /// acknowledged) for the list that names it.
    func sender(of opened: OpenedEnvelope) throws -> IdentityKey? {
        let account = dependencies.identity.publicKey
        if let certificate = opened.deviceCertificate {
            guard certificate.account == account else { return nil }
        } else if opened.sender == account {
            // Our own key on the first device is no device of ours: it is ourselves.
            guard dependencies.device != nil else { return nil }
            if try list()?.retiresAccountKey == true {
                throw MessengerError.protocolFailure("from this account's key, retired when the device that kept it was revoked")
            }
            return account
        } else if try store.ownDeviceSessions.id(deviceKey: opened.sender.rawRepresentation) == nil,
                  try list()?.entry(DeviceID(deviceKey: opened.sender.signingKey)) == nil {
            // Neither a device we hold a session with nor one our list names (a session lost here,
            // restored from a backup, is still known by the list).
            return nil
        }
        guard let list = try list() else {
            throw MessengerError.protocolFailure("from a device of this account, which keeps no device list")
        }
        switch list.entry(DeviceID(deviceKey: opened.sender.signingKey))?.isActive {
        case true?:
            return opened.sender
        case false?:
            throw MessengerError.protocolFailure("from a device this account revoked")
        case nil:
            // In memory: this receive's transaction is rolled back when it throws.
            listMayBeBehind = true
            throw MessengerError.missingLocalState("from a device of this account that the device list kept here does not name yet: it waits for the newer list")
        }
    }

    /// Keeps our account's list `bytes`, sent by another of our devices,
    /// when it follows the one kept here (§20.3); a list not newer changes
    /// nothing. The sessions with a device it revokes end. Joins the
    /// caller's transaction.
    func adopt(_ bytes: [UInt8]) throws {
        let held = try list()
        let outcome: DeviceListVerifier.Outcome
        do throws(ProtocolError) {
            outcome = try DeviceListVerifier(account: dependencies.identity.publicKey, current: held).check(bytes)
        } catch .deviceListRefused(.notNewer) {
            return
        } catch {
            throw MessengerError.protocolFailure("another device of this account sent a device list that is refused: \(error.description)")
        }
        guard case let .accepted(change) = outcome else { return }
        guard change.list.counter <= UInt64(Int64.max) else {
            throw MessengerError.protocolFailure("another device of this account sent a device list whose counter is beyond 2^63 − 1")
        }
        try store.deviceLists.keep(bytes, counter: change.list.counter, at: dependencies.clock.now())
        for revoked in change.revoked {
            try store.ownDeviceSessions.end(deviceKey: revoked.key.rawRepresentation)
            // Copies sealed for it before the list came go nowhere.
            try RetiredAccountKey(dependencies).dropQueued(for: revoked.key.rawRepresentation)
        }
        let account = dependencies.identity.publicKey.rawRepresentation
        if change.list.retiresAccountKey, dependencies.transportIdentity.publicKey.rawRepresentation != account {
            try store.ownDeviceSessions.end(deviceKey: account)
            if held?.retiresAccountKey != true { try RetiredAccountKey(dependencies).dropQueued(for: account) }
        }
    }
}

extension ContentBody {
    /// Whether the user wrote it: what a conversation shows and its
    /// changes (not a read receipt), which a device the account revoked
    /// does not send (`OwnDevices.requireThisDeviceActive`).
    var isWrittenByTheUser: Bool {
        if case .readReceipt = self { return false }
        return isCopiedToOwnDevices
    }

    /// Whether a content sealed for a contact is copied to our other
    /// devices as a sent transcript (§20.12): what the conversation shows
    /// (texts, files, replies, reactions, edits, deletions, timers, each
    /// also expiring) and read receipts. Not delivery receipts, typing,
    /// decryption errors, credentials or profiles: each device sends its own.
    var isCopiedToOwnDevices: Bool {
        switch self {
        case .text, .reply, .attachment, .reaction, .edit, .deletion, .disappearingTimer, .readReceipt: true
        case let .expiring(_, inner): inner.isCopiedToOwnDevices
        default: false
        }
    }
}
