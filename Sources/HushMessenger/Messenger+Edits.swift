import HushProtocol
import HushStore

/// Edits (docs/PROTOCOL.md §10.6): the author's new text for one of its
/// texts or replies, sent to the message's conversation and kept here with
/// the versions before it.
extension Messenger {
    /// Replaces the text of our message `messageId` with `text`, for us and
    /// for the conversation: checked by `EditRule` (our own text or reply,
    /// within the window, under the number of edits; otherwise `notEditable`
    /// and nothing is sent), sealed, recorded here in the same transaction
    /// (history shows the new text, search finds it), then delivered once.
    public func edit(message messageId: Int64, text: String) async throws -> StoredMessage {
        guard !text.isEmpty else { throw MessengerError.notEditable("the new text is empty") }
        guard text.utf8.count <= ContentLimits.maxTextLength else {
            throw MessengerError.messageTooLong(limit: ContentLimits.maxTextLength)
        }
        guard let message = try store.messages.message(id: messageId) else { throw MessengerError.noSuchMessage(messageId) }
        let target = try target(conversationID: message.conversationId)
        let now = clock.now()
        if let refusal = EditRule.check(message, author: identity.address.description, editedAt: now,
                                        edits: try store.edits.count(messageId: messageId)) {
            throw MessengerError.notEditable(refusal.description)
        }
        let body = ContentBody.edit(of: try MessageID(hex: message.clientMessageId), text: text)
        try store.write { store in
            let editID: MessageID
            switch target {
            case let .group(name): editID = try sealer.sealControl(body, toGroup: name)
            case let .contact(name): editID = try sealer.seal(body, to: name)
            }
            _ = try store.edits.record(messageId: messageId, editId: editID.description, body: text, sentAt: now,
                                       limit: ContentLimits.maxEditsPerMessage)
        }
        await outgoing.flush()
        guard let edited = try store.messages.message(id: messageId) else { throw MessengerError.noSuchMessage(messageId) }
        return edited
    }

    /// Every version of message `messageId`, oldest first: the original and
    /// each edit with the author's time; empty when it was never edited.
    public func versions(ofMessage messageId: Int64) throws -> [MessageVersion] {
        guard try store.messages.message(id: messageId) != nil else { throw MessengerError.noSuchMessage(messageId) }
        return try store.edits.versions(messageId: messageId)
    }
}
