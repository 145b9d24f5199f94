import HushProtocol
import HushStore

/// Received edits (docs/PROTOCOL.md §10.6): applied only to a text or reply
/// of the same conversation written by the edit's own sender, within the
/// window and the number of edits; anything else is ignored, for the reason
/// `applyEdit` returns, and changes nothing.
extension ContentApplier {
    /// Applies `contact`'s edit (content `edit`, naming `target`) to the
    /// message in `conversation`, keeping the version it replaces, and tells
    /// live views when the text shown changed. Returns why it was ignored,
    /// or nil when it was kept. An edit of a message not stored here is
    /// ignored, not kept for later: its author saw the message before
    /// editing it, so the edit is deposited after it (§10.6).
    @discardableResult
    func applyEdit(of target: MessageID, text: String, edit: Content, from contact: Contact,
                   conversation: Int64) throws -> EditRule.Refusal? {
        guard let message = try dependencies.store.messages.message(clientMessageId: target.description),
              message.conversationId == conversation else { return .unknownMessage }
        guard message.direction == .incoming else { return .notTheAuthor }
        if let refusal = EditRule.check(message, author: contact.address, editedAt: Int64(clamping: edit.sentAt),
                                        edits: try dependencies.store.edits.count(messageId: message.id)) {
            return refusal
        }
        let outcome = try dependencies.store.edits.record(messageId: message.id, editId: edit.id.description, body: text,
                                                          sentAt: Int64(clamping: edit.sentAt),
                                                          limit: ContentLimits.maxEditsPerMessage)
        switch outcome {
        case .applied: dependencies.emit(.messageEdited(messageID: message.id, conversationID: conversation))
        case .superseded, .duplicate: break
        case .limitReached: return .tooManyEdits
        }
        return nil
    }
}
