import HushCrypto
import HushProtocol
import HushStore

extension Messenger {
    /// Stores `text` as a pending message for `name`, seals it, and queues the
    /// sealed envelope in the outbox, all in one transaction; then tries to
    /// deliver the outbox. Returns the message as stored after that attempt.
    @discardableResult
    public func send(text: String, to name: String) async throws -> StoredMessage {
        try await sendReportingDelivery(text: text, to: name).message
    }

    /// `send`, also telling whether the relay refused the message in this
    /// attempt (it stays in the outbox either way, unless given up on).
    public func sendReportingDelivery(text: String, to name: String) async throws -> (message: StoredMessage, refusedByRelay: Bool) {
        guard text.utf8.count <= ContentLimits.maxTextLength else {
            throw MessengerError.messageTooLong(limit: ContentLimits.maxTextLength)
        }
        let messageID = try seal(.text(text), to: name, recordAs: text)
        let report = await flushOutbox()
        guard let stored = try store.messages.message(clientMessageId: messageID.description) else {
            throw MessengerError.unknownMessage(messageID.description)
        }
        return (stored, report.refusedMessageIDs.contains(stored.id))
    }

    /// Seals `body` for `name` and queues it. When `recordAs` is given the
    /// content is also stored as an outgoing message shown in the history;
    /// receipts and profile updates are queued without one.
    @discardableResult
    func seal(_ body: ContentBody, to name: String, recordAs text: String? = nil) throws -> MessageID {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        guard contact.verification != .changed else { throw MessengerError.identityChanged(name: name) }
        // Nothing at all goes to a stranger before the user accepts, nor to
        // someone blocked (docs/PROTOCOL.md §10.2).
        switch contact.standing {
        case .accepted: break
        case .requested: throw MessengerError.requestNotAccepted(name: contact.name)
        case .blocked: throw MessengerError.contactBlocked(name: contact.name)
        }
        let now = clock.now()
        let content = Content(id: MessageID.random(using: random), sentAt: UInt64(now), body: body)
        // Joins the caller's transaction (a sync seals a receipt per message
        // it stores): no savepoint per message.
        try store.withinWrite { store in
            let session = try loadSession(contactId: contact.id)
            let envelope = try session.seal(try content.encoded(), using: random)
            let conversation = try store.conversations.conversation(forContact: contact.id, title: contact.name, at: now)
            let requestID = Hex.encode(random.bytes(16))
            if let text {
                let message = NewMessage(conversationId: conversation, clientMessageId: content.id.description,
                                         direction: .outgoing, sender: identity.address.description, body: text,
                                         contentType: content.body.contentTypeName, status: .pending, createdAt: now)
                let messageId = try store.sendQueue.queue(message, requestId: requestID, sealedPayload: envelope, at: now)
                try store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: messageId, at: now)
            } else {
                try store.outbox.enqueue(requestId: requestID, messageId: nil, conversationId: conversation,
                                         sealedPayload: envelope, at: now)
            }
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
        }
        return content.id
    }

    /// Seals our delivery credential for `contact` unless they already hold
    /// the current one. Called for everything received from a contact, so
    /// both sides of a session hold each other's after the first exchange
    /// (whoever started it), and a changed credential reaches a contact with
    /// the next thing they send us. Runs inside the caller's transaction.
    func handOverCredential(to contact: Contact) throws {
        guard contact.standing == .accepted, let credential = try ownDeliveryCredential(),
              try store.contacts.credentialSent(contactId: contact.id) != credential else { return }
        try store.withinWrite { store in
            try seal(.deliveryCredential(credential), to: contact.name)
            try store.contacts.setCredentialSent(credential, contactId: contact.id)
        }
    }

    /// Sends a typing indicator over the live connection only: it is never
    /// queued or stored, and is dropped when the contact is offline.
    public func sendTyping(_ active: Bool, to name: String) async throws {
        guard let contact = try store.contacts.contact(named: name), contact.verification != .changed, contact.standing == .accepted,
              let credential = try store.contacts.deliveryCredential(contactId: contact.id) else { return }
        let now = clock.now()
        let content = Content(id: MessageID.random(using: random), sentAt: UInt64(now),
                              body: active ? .typingStarted : .typingStopped)
        let envelope: [UInt8]? = try store.write { store in
            let session = try loadSession(contactId: contact.id)
            // Each ephemeral envelope takes a message number of the sending
            // chain, and one the contact misses (no socket open) is a gap it
            // bridges with skipped keys, at most RatchetLimits.maxForwardJump
            // (a chain's head, or an old chain's tail plus a new chain's head).
            // Half of it per chain keeps both within the bound, so dropped
            // typing indicators never make later messages undecryptable
            // (docs/PROTOCOL.md, Appendix B).
            guard session.ratchet.sendCount < UInt32(RatchetLimits.maxForwardJump / 2) else { return nil }
            let envelope = try session.seal(try content.encoded(), using: random)
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
            return envelope
        }
        guard let envelope else { return }
        let recipient = try IdentityKey(rawRepresentation: contact.identityKey)
        try? await withReauthentication { () async throws(DeliveryFailure) in
            try await transport.sendEphemeral(envelope, to: recipient, credential: credential)
        }
    }

    func loadSession(contactId: Int64) throws -> Session {
        guard let state = try store.sessions.load(contactId: contactId) else {
            throw MessengerError.missingLocalState("no session with this contact: remove and add the contact again")
        }
        return try Session(serialized: state)
    }
}

extension ContentBody {
    /// The `content_type` the store records for a message shown in history.
    var contentTypeName: String {
        switch self {
        case .text: return "text/plain"
        case .attachment: return "attachment"
        default: return "control"
        }
    }
}
