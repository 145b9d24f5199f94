import HushCrypto
import HushDatabase
import HushProtocol
import HushStore

/// What happened to one envelope.
public enum ReceiveOutcome: Sendable, Equatable {
    /// Stored (or recognised as already stored); safe to acknowledge.
    case stored
    /// Could not be decrypted or decoded; kept aside with the reason, and
    /// safe to acknowledge (the relay copy adds nothing).
    case quarantined(reason: String)
    /// Could not be decrypted, and the sender (known, with a session) was
    /// asked to send it again: set aside too, but expected to recover.
    case resendRequested(reason: String)
    /// Could not be used for a cause on our side (no session, a missing
    /// private prekey): kept at the relay, NOT safe to acknowledge, and tried
    /// again by every sync.
    case deferred(reason: String)
    /// From a blocked contact: dropped unread, safe to acknowledge.
    case dropped
    /// Already processed earlier (at or below the sync cursor).
    case alreadyProcessed
}

/// What `process` did with a decryptable envelope.
enum ProcessResult {
    case applied
    /// The sender is blocked: nothing was decrypted past the sealed layer.
    case droppedFromBlocked
}

extension Messenger {
    /// Decrypts and stores one envelope. The message, the advanced ratchet
    /// state, the consumed one-time prekeys and the sync cursor are written in
    /// one transaction; when the envelope cannot be used, only a quarantine
    /// record is written, so the session still decrypts the next genuine one.
    ///
    /// A failure of our own database (disk full, locked, damaged) is not the
    /// envelope's fault: it is rethrown, nothing is quarantined, the cursor
    /// stays, and the caller must not acknowledge, so the relay keeps it.
    ///
    /// The "already processed" check runs inside each write transaction (an
    /// immediate one: the write lock), so two processes syncing one home at
    /// once never both process an envelope; the second sees the first's
    /// cursor, instead of failing to decrypt a message its ratchet already
    /// consumed and reporting it as replayed.
    ///
    /// An envelope that fails for a cause on our side (`missingLocalState`) is
    /// deferred: recorded, not acknowledged, and tried again by the next sync
    /// (the relay still holds it), never dropped for a fault that is ours.
    @discardableResult
    public func receive(_ envelope: MailboxEnvelope) throws -> ReceiveOutcome {
        do {
            let outcome: ReceiveOutcome = try store.write { store in
                if try Messenger.alreadyProcessed(envelope, in: store) { return .alreadyProcessed }
                let result = try process(envelope)
                try store.quarantine.resolveDeferred(serverId: envelope.serverID)
                try store.settings.advanceSyncCursor(to: envelope.serverID)
                return result == .applied ? .stored : .dropped
            }
            return outcome
        } catch where Messenger.isLocalStorageFailure(error) {
            throw error
        } catch let error as MessengerError {
            guard case let .missingLocalState(reason) = error else { return try setAside(envelope, error) }
            let deferred: Bool = try store.write { store in
                if try Messenger.alreadyProcessed(envelope, in: store) { return false }
                try store.quarantine.deferEnvelope(serverId: envelope.serverID, envelope: envelope.bytes, reason: reason, at: clock.now())
                try store.settings.advanceSyncCursor(to: envelope.serverID)
                return true
            }
            return deferred ? .deferred(reason: reason) : .alreadyProcessed
        } catch {
            return try setAside(envelope, error)
        }
    }

    /// Quarantines an envelope that cannot be used (and tells its sender when
    /// the sealed layer names a contact); safe to acknowledge.
    private func setAside(_ envelope: MailboxEnvelope, _ error: any Error) throws -> ReceiveOutcome {
        do {
            let reason = Messenger.quarantineReason(for: error)
            let reported: Bool? = try store.write { store in
                // Another process may have stored it between the two transactions.
                if try Messenger.alreadyProcessed(envelope, in: store) { return nil }
                try store.quarantine.resolveDeferred(serverId: envelope.serverID)
                let reported = reportUndecryptable(envelope)
                try store.quarantine.add(serverId: envelope.serverID, envelope: envelope.bytes, reason: reason, at: clock.now())
                try store.settings.advanceSyncCursor(to: envelope.serverID)
                return reported
            }
            guard let reported else { return .alreadyProcessed }
            emit(.quarantined(reason: reason))
            return reported ? .resendRequested(reason: reason) : .quarantined(reason: reason)
        }
    }

    /// At or below the sync cursor, and not deferred: stored or set aside for
    /// good by an earlier run.
    static func alreadyProcessed(_ envelope: MailboxEnvelope, in store: MessageStore) throws -> Bool {
        guard envelope.serverID <= (try store.settings.syncCursor() ?? 0) else { return false }
        return try !store.quarantine.isDeferred(serverId: envelope.serverID)
    }

    /// Handles an ephemeral envelope (typing): decrypted with the session but
    /// never stored as a message.
    public func receiveEphemeral(_ bytes: [UInt8]) {
        try? store.write { store in
            _ = try process(MailboxEnvelope(serverID: 0, relayTimestamp: clock.now(), bytes: bytes), ephemeral: true)
        }
    }

    /// Errors of our own database, as opposed to an unusable envelope.
    static func isLocalStorageFailure(_ error: any Error) -> Bool {
        error is DatabaseError || error is StoreError
    }

    /// The tie-break for crossed handshakes: the lexicographically lower id wins.
    static func handshakeWins(_ incoming: [UInt8], over ours: [UInt8]) -> Bool {
        incoming.lexicographicallyPrecedes(ours)
    }

    static func quarantineReason(for error: any Error) -> String {
        switch error {
        case let error as ProtocolError:
            switch error {
            case .decryptionFailed: return "could not be decrypted: tampered with, replayed, or from an unknown session"
            case .messageGapTooLarge: return "too many messages were skipped in one chain (over the protocol's bound)"
            case .senderMismatch: return "the sender inside does not match the session"
            default: return "refused by the protocol: \(error.description)"
            }
        case let error as MessengerError: return error.description
        default: return "could not be stored: \(error)"
        }
    }

    /// Decrypts `envelope` and applies its content. Runs inside the caller's transaction.
    func process(_ envelope: MailboxEnvelope, ephemeral: Bool = false) throws -> ProcessResult {
        let opened = try SealedSender.open(envelope.bytes, recipient: identity)
        let now = clock.now()
        let (contact, _) = try contactForSender(opened.sender, at: now)
        // Checked before the ratchet: a blocked sender's session does not move,
        // so unblocking later finds it where it was.
        if contact.standing == .blocked { return .droppedFromBlocked }
        let session: Session
        var consumedPrekeys: [(PrekeyKind, UInt32)] = []
        let current = try? loadSession(contactId: contact.id)
        if let handshake = opened.handshake, current.map({ !$0.matches(handshake) }) ?? true {
            guard !ephemeral else { throw MessengerError.protocolFailure("typing indicator without a session") }
            // Both sides started a session at once ("crossed" first messages):
            // both keep the one whose handshake id is lower, so they converge.
            // That only applies when ours has sealed something: a session that
            // `contact add` started but never used cannot have reached the peer,
            // so the peer will never switch to it and we must take theirs.
            if let current, current.pendingHandshake != nil,
               current.ratchet.sendCount > 0 || current.ratchet.previousSendCount > 0,
               !Messenger.handshakeWins(handshake.ephemeralKey.rawRepresentation, over: current.handshakeID) {
                throw MessengerError.protocolFailure("crossed first messages: both sides started a session at once and the peer's lost the tie-break; the peer is asked to resend it on ours")
            }
            session = try acceptSession(opened, handshake: handshake)
            // A new session may come from a peer who lost everything (a new
            // database): whatever we gave them before, give it again.
            try store.contacts.setCredentialSent(nil, contactId: contact.id)
            if let oneTime = handshake.oneTimePrekeyID { consumedPrekeys.append((.oneTimeX25519, oneTime)) }
            if handshake.kemPrekeyKind == .oneTimeKEM { consumedPrekeys.append((.oneTimeKEM, handshake.kemPrekeyID)) }
        } else {
            session = try loadSession(contactId: contact.id)
        }
        let skipped = try PersistentSkippedKeys(store: store, contactId: contact.id, now: now)
        let plaintext = try session.open(opened, skippedKeys: skipped.memory, using: random)
        let content = try Content(decoding: plaintext)
        // The ephemeral path stores nothing and is acknowledged to no one:
        // anything but typing arriving that way is refused, not applied.
        if ephemeral, content.body != .typingStarted, content.body != .typingStopped {
            throw MessengerError.protocolFailure("only typing indicators travel as ephemeral envelopes")
        }
        try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
        try skipped.persist(at: now)
        for (kind, id) in consumedPrekeys { try store.prekeys.delete(kind: kind.storeName, id: Int64(id)) }
        if !consumedPrekeys.isEmpty { prekeysMayNeedRefill = true }
        try apply(content, from: contact, envelope: envelope)
        if !ephemeral {
            // Whoever writes to us (a stranger, a contact who added us first, or
            // the contact whose session we started, answering) gets what it needs
            // to pass the relay's stranger rate limit, once per credential; the
            // relay never learns which contact presents it.
            try handOverCredential(to: contact)
        }
        return .applied
    }

    private func apply(_ content: Content, from contact: Contact, envelope: MailboxEnvelope) throws {
        let now = clock.now()
        switch content.body {
        case let .text(text):
            try storeIncoming(text, contentType: "text/plain", content: content, from: contact, envelope: envelope)
        case let .attachment(pointer):
            try storeIncoming("[attachment \(pointer.fileName.isEmpty ? "unnamed" : pointer.fileName), \(pointer.size) bytes]",
                              contentType: "attachment", content: content, from: contact, envelope: envelope)
        case let .deliveryReceipt(ids):
            try updateOutgoing(ids, to: .delivered, contact: contact, at: now)
        case let .readReceipt(ids):
            try updateOutgoing(ids, to: .read, contact: contact, at: now)
        case .typingStarted, .typingStopped:
            // A stranger's typing is not shown: a request is read when the user chooses.
            if contact.standing == .accepted { emit(.typing(contact: contact.name, active: content.body == .typingStarted)) }
        case let .deliveryCredential(token):
            try store.contacts.setDeliveryCredential(token, contactId: contact.id)
        case .profile:
            // Display names are shown only after the user names the contact; nothing to store yet.
            break
        case let .decryptionError(digest):
            try answerDecryptionError(digest, from: contact)
        }
    }

    private func storeIncoming(_ body: String, contentType: String, content: Content, from contact: Contact, envelope: MailboxEnvelope) throws {
        let conversation = try store.conversations.conversation(forContact: contact.id, title: contact.name, at: clock.now())
        let message = NewMessage(conversationId: conversation, serverId: envelope.serverID, clientMessageId: content.id.description,
                                 direction: .incoming, sender: contact.address, body: body, contentType: contentType,
                                 status: .delivered, createdAt: Int64(clamping: content.sentAt), relayTimestamp: envelope.relayTimestamp)
        guard case let .inserted(id) = try store.messages.insert(message) else { return }
        // A request gets its receipts when (and if) the user accepts it. While
        // a changed identity key waits for the user, nothing is sealed to the
        // contact; what still arrives on the old session is stored all the same.
        guard contact.standing == .accepted, contact.verification != .changed else {
            if let stored = try store.messages.message(id: id) { emit(.request(stored, contact: contact.name)) }
            return
        }
        try seal(.deliveryReceipt([content.id]), to: contact.name)
        if let stored = try store.messages.message(id: id) { emit(.received(stored, contact: contact.name)) }
    }

    private func updateOutgoing(_ ids: [MessageID], to status: MessageStatus, contact: Contact, at time: Int64) throws {
        for id in ids {
            // Scoped to the sender's conversation: a contact can confirm only
            // what was sent to it.
            let conversation = try store.conversations.conversation(forContact: contact.id, title: contact.name, at: time)
            if try store.messages.advanceOutgoingStatus(clientMessageId: id.description, to: status, at: time, conversationId: conversation) {
                emit(.statusChanged(clientMessageID: id.description, status: status, contact: contact.name))
            }
        }
    }

    /// The contact this identity belongs to, created (named after its
    /// address) as a message request when a stranger writes first.
    private func contactForSender(_ sender: IdentityKey, at time: Int64) throws -> (Contact, isNew: Bool) {
        if let contact = try contact(forIdentity: sender) { return (contact, false) }
        let address = sender.address.description
        let base = Messenger.unknownContactPrefix + String(address.dropFirst(5).prefix(8))
        var name = base
        var suffix = 2
        while try store.contacts.contact(named: name) != nil {
            name = base + "-\(suffix)"
            suffix += 1
        }
        let contact = try store.contacts.add(name: name, address: address, identityKey: sender.rawRepresentation,
                                             standing: .requested, at: time)
        _ = try store.conversations.conversation(forContact: contact.id, title: name, at: time)
        return (contact, true)
    }

    private func acceptSession(_ opened: OpenedEnvelope, handshake: HandshakeInit) throws -> Session {
        func prekey(_ kind: PrekeyKind, _ id: UInt32) throws -> PrivatePrekey {
            guard let stored = try store.prekeys.prekey(kind: kind.storeName, id: Int64(id)) else {
                throw MessengerError.missingLocalState("the first message names a \(kind) prekey (\(id)) we no longer have")
            }
            return try PrivatePrekey(serialized: stored.privateKey, identity: identity.publicKey)
        }
        let signed = try prekey(.signedX25519, handshake.signedPrekeyID)
        let oneTime = try handshake.oneTimePrekeyID.map { try prekey(.oneTimeX25519, $0) }
        let kem = try prekey(handshake.kemPrekeyKind, handshake.kemPrekeyID)
        return try Session.accept(identity: identity, opened: opened, signedPrekey: signed, oneTimePrekey: oneTime, kemPrekey: kem)
    }

    // MARK: Read receipts

    /// Marks every incoming message of the conversation with `name` read and
    /// queues encrypted read receipts for them. Returns how many were marked.
    @discardableResult
    public func markRead(contact name: String) async throws -> Int {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        let now = clock.now()
        let marked: Int = try store.write { store in
            let conversation = try store.conversations.conversation(forContact: contact.id, title: contact.name, at: now)
            let unread = try store.messages.unreadIncoming(conversationId: conversation)
            guard let last = unread.last else { return 0 }
            _ = try store.messages.markRead(upTo: last.id, in: conversation, at: now)
            if contact.verification != .changed, contact.standing == .accepted {
                for chunk in stride(from: 0, to: unread.count, by: ContentLimits.maxReceiptIDs) {
                    let ids = try unread[chunk..<min(chunk + ContentLimits.maxReceiptIDs, unread.count)]
                        .map { try MessageID(hex: $0.clientMessageId) }
                    try seal(.readReceipt(ids), to: contact.name)
                }
            }
            return unread.count
        }
        if marked > 0 { await flushOutbox() }
        return marked
    }
}

extension PrekeyKind {
    /// The name the store files private prekeys under.
    var storeName: String { String(describing: self) }
}

extension MessageID {
    init(hex: String) throws {
        try self.init(bytes: Hex.decode(hex))
    }
}
