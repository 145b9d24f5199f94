import HushProtocol
import HushStore

extension ContentApplier {
    /// A member's text, reply or file in a large group (docs/PROTOCOL.md
    /// §18.4), opened by its derived chain: stored in the group's
    /// conversation under the author's address. The author need not be a
    /// contact (members meet only in the group); one who is and is blocked
    /// is not shown. No receipt is owed: each would need a session with the
    /// author.
    func applyLargeGroup(_ content: Content, from author: IdentityKey, group: StoredGroup, envelope: MailboxEnvelope,
                         expiresAfter: UInt32? = nil) throws {
        let contact = try store.contacts.contact(identityKey: author.rawRepresentation)
        guard contact?.standing != .blocked else { return }
        // A large group's messages are the account key's (§18.4): once the list held of the author
        // retires it (§20.14), what the relay stored after the revocation is the revoked device's.
        if let contact, let kept = try dependencies.heldDeviceList(of: contact)?.accountKeyDevice, !kept.isActive,
           UInt64(clamping: envelope.relayTimestamp) > kept.revokedAt {
            throw MessengerError.protocolFailure("a large group's message from \(contact.name)'s account key, retired when the device that kept it was revoked")
        }
        let body: String, contentType: String
        var pointer: AttachmentPointer?
        var replyTo: MessageID?
        switch content.body {
        case let .expiring(seconds, inner):
            try applyLargeGroup(Content(id: content.id, sentAt: content.sentAt, body: inner), from: author, group: group, envelope: envelope,
                                expiresAfter: seconds)
            return
        case let .text(text): (body, contentType) = (text, "text/plain")
        case let .reply(quoted, text): (body, contentType, replyTo) = (text, "text/plain", quoted)
        case let .attachment(attached):
            (body, contentType) = (StoredAttachment.summary(fileName: attached.fileName, size: Int64(attached.size)), "attachment")
            pointer = attached
        default: return
        }
        let address = author.address.description
        let message = NewMessage(conversationId: group.conversationId, serverId: envelope.serverID, clientMessageId: content.id.description,
                                 direction: .incoming, sender: address, body: body, contentType: contentType,
                                 status: .delivered, createdAt: Int64(clamping: content.sentAt), relayTimestamp: envelope.relayTimestamp,
                                 replyTo: replyTo?.description, expiresAfter: expiresAfter.map(Int64.init))
        guard case let .inserted(id) = try store.messages.insert(message) else { return }
        if let pointer { try downloads.recordIncoming(pointer, messageId: id) }
        if let stored = try store.messages.message(id: id) {
            try dependencies.emit(.groupReceived(stored, group: group.name, member: contact?.name ?? address))
        }
    }
}
