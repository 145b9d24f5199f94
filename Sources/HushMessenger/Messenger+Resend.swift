import HushCrypto
import HushProtocol
import HushStore

/// Decryption errors and resends: a message the receiver cannot decrypt never
/// vanishes silently. The receiver names the envelope (its SHA-256) in a
/// decryption error sealed on the current session; the sender finds the
/// message that envelope carried and seals it again, with the same message
/// id and time, on the current session, once (docs/PROTOCOL.md §10.1).
extension Messenger {
    /// Receiver side, inside the transaction that sets the envelope aside:
    /// when the sealed layer names a contact we hold a session with, tell
    /// them. An envelope whose sealed layer does not open, or whose exact
    /// bytes were set aside before (a replay), is not answered.
    /// Returns whether the sender was told.
    func reportUndecryptable(_ envelope: MailboxEnvelope) -> Bool {
        guard let opened = try? SealedSender.open(envelope.bytes, recipient: identity),
              let contact = try? contact(forIdentity: opened.sender), contact.verification != .changed, contact.standing == .accepted,
              (try? store.sessions.load(contactId: contact.id)) != nil,
              (try? store.quarantine.contains(envelope: envelope.bytes)) == false else { return false }
        // Best effort: failing to report must not stop the envelope being set
        // aside. The one savepoint on this path, on purpose: the failure is
        // swallowed, so a half-written seal (an envelope queued without its
        // advanced session) must be rolled back on its own.
        return (try? store.write { _ in
            try seal(.decryptionError(envelopeDigest: SHA256.hash(envelope.bytes)), to: contact.name)
        }) != nil
    }

    /// Client message ids of the messages to `name` that were resent after
    /// the contact reported them undecryptable (what `hush history` marks).
    public func resentMessages(in name: String) throws -> [String] {
        guard let contact = try store.contacts.contact(named: name) else { throw MessengerError.unknownContact(name) }
        let conversation = try store.conversations.conversation(forContact: contact.id, title: contact.name, at: clock.now())
        return try store.resends.resentClientMessageIds(conversationId: conversation)
    }

    /// Sender side: `contact` could not decrypt the envelope with `digest`.
    /// Reseals the message it carried unless the contact already confirmed
    /// it (a receipt) or it was resent once already.
    func answerDecryptionError(_ digest: [UInt8], from contact: Contact) throws {
        guard let messageId = try store.resends.messageId(forEnvelope: digest),
              let message = try store.messages.message(id: messageId), message.direction == .outgoing,
              message.status != .delivered, message.status != .read,
              try store.contacts.contact(conversationId: message.conversationId)?.id == contact.id,
              try store.resends.markResent(messageId: messageId, at: clock.now())
        else { return }
        try reseal(message, for: contact)
        emit(.resent(clientMessageID: message.clientMessageId, contact: contact.name))
    }

    /// Seals `message` again on the current session and queues it under a
    /// new request id; the store keeps its id, time and place.
    func reseal(_ message: StoredMessage, for contact: Contact) throws {
        try store.withinWrite { store in
            guard let envelope = try sealAgain(message, for: contact) else { return }
            try store.outbox.enqueue(requestId: Hex.encode(random.bytes(16)), messageId: message.id,
                                     conversationId: message.conversationId, sealedPayload: envelope, at: clock.now())
        }
    }

    /// `hush retry` of a message the relay never accepted: sealed again on the
    /// current session, so the receiver needs no old skipped key for it.
    /// Requests that carry no text (receipts, credentials) are posted as they are.
    func resealForRetry(_ item: OutboxItem) throws -> Bool {
        guard let messageId = item.messageId, let message = try store.messages.message(id: messageId),
              let contact = try store.contacts.contact(conversationId: item.conversationId), contact.verification != .changed
        else { return false }
        return try store.withinWrite { store in
            guard let envelope = try sealAgain(message, for: contact) else { return false }
            try store.sendQueue.replaceEnvelope(requestId: item.requestId, newRequestId: Hex.encode(random.bytes(16)),
                                             sealedPayload: envelope, at: clock.now())
            return true
        }
    }

    /// The message's content sealed on the current session (the session state
    /// saved, the envelope's digest recorded), or nil when it cannot be: only
    /// text can (an attachment's key is not kept with the message).
    private func sealAgain(_ message: StoredMessage, for contact: Contact) throws -> [UInt8]? {
        guard message.contentType == "text/plain" else { return nil }
        let content = Content(id: try MessageID(hex: message.clientMessageId), sentAt: UInt64(clamping: message.createdAt),
                              body: .text(message.body))
        let now = clock.now()
        let session = try loadSession(contactId: contact.id)
        let envelope = try session.seal(try content.encoded(), using: random)
        try store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: message.id, at: now)
        try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
        return envelope
    }
}
