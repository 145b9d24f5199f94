import HushCrypto
import HushProtocol
import HushStore

/// Sealing a stored message again on the current session: for a contact who
/// could not decrypt it (docs/PROTOCOL.md §10.1), and for `hush retry` of a
/// message the relay never accepted, so the receiver needs no old skipped
/// key for it. The message keeps its id, time and place.
extension Sealer {
    /// Seals `message` again and queues it under a new request id.
    func reseal(_ message: StoredMessage, for contact: Contact) throws {
        try dependencies.store.withinWrite { store in
            guard let (envelope, primary) = try sealAgain(message, for: contact) else { return }
            let requestID = Hex.encode(dependencies.random.bytes(16)), now = dependencies.clock.now()
            try store.outbox.enqueue(requestId: requestID, messageId: message.id, conversationId: message.conversationId,
                                     sealedPayload: envelope, at: now)
            try primary.queued(requestID, at: now)
        }
    }

    /// Replaces a waiting request's envelope with one sealed on the current
    /// session. False for requests that carry no text (receipts,
    /// credentials): those are posted as they are.
    func resealForRetry(_ item: OutboxItem) throws -> Bool {
        let store = dependencies.store
        // A request to a device (a contact's, its account key retired) is posted as it was sealed, on
        // that device's session: sealed again on the primary session it would change devices.
        guard let messageId = item.messageId, let message = try store.messages.message(id: messageId),
              let contact = try store.contacts.contact(conversationId: item.conversationId), contact.verification != .changed,
              try store.groups.undeliveredRecipients(requestId: item.requestId) == nil
        else { return false }
        return try store.withinWrite { store in
            guard let (envelope, primary) = try sealAgain(message, for: contact) else { return false }
            let requestID = Hex.encode(dependencies.random.bytes(16)), now = dependencies.clock.now()
            try store.sendQueue.replaceEnvelope(requestId: item.requestId, newRequestId: requestID, sealedPayload: envelope, at: now)
            try primary.queued(requestID, at: now)
            return true
        }
    }

    /// The message's content sealed on the contact's primary session (the
    /// envelope's digest recorded; the caller queues it and saves the
    /// session with `PrimarySession.queued`), or nil when it cannot be: a
    /// text can, and an attachment whose blob is uploaded (its pointer is
    /// kept with the message since schema version 11).
    private func sealAgain(_ message: StoredMessage, for contact: Contact) throws -> ([UInt8], PrimarySession)? {
        guard let content = try contentAgain(of: message) else { return nil }
        let now = dependencies.clock.now()
        let primary = try PrimarySession.load(for: contact, dependencies)
        let envelope = try primary.session.seal(try content.encoded(), using: dependencies.random)
        try dependencies.store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: message.id, at: now)
        return (envelope, primary)
    }

    /// The content `message` was sent as, for sealing it again: the same id
    /// and time; a text, a reply, or an attachment whose blob is uploaded
    /// (its pointer is kept with the message since schema version 11). Nil
    /// for anything else.
    func contentAgain(of message: StoredMessage) throws -> Content? {
        let body: ContentBody
        if message.contentType == "text/plain", let quoted = message.replyTo {
            body = .reply(to: try MessageID(hex: quoted), text: message.body)
        } else if message.contentType == "text/plain" {
            body = .text(message.body)
        } else if message.contentType == "attachment", let attachment = try dependencies.store.attachments.attachment(messageId: message.id),
                  let pointer = try attachment.pointer() {
            body = .attachment(pointer)
        } else {
            return nil
        }
        return Content(id: try MessageID(hex: message.clientMessageId), sentAt: UInt64(clamping: message.createdAt),
                       body: body.expiring(after: message.expiresAfter))
    }
}
