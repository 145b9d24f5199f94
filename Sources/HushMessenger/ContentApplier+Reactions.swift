import HushProtocol
import HushStore

/// Received reactions (docs/PROTOCOL.md §10.5): one per reactor per message,
/// the latest by the reactor's clock; only to a message of the conversation
/// the reaction came in, so nobody reacts to what they were never shown.
extension ContentApplier {
    /// Records `contact`'s reaction to the message with client id `target`
    /// in `conversation` and tells live views; a reaction to a message this
    /// device does not have there is ignored (storing it would let anyone
    /// fill the store with reactions to made-up ids).
    func applyReaction(to target: MessageID, emoji: String?, sentAt: UInt64, from contact: Contact, conversation: Int64) throws {
        guard let message = try dependencies.store.messages.message(clientMessageId: target.description),
              message.conversationId == conversation else { return }
        guard try dependencies.store.reactions.record(messageId: message.id, reactor: contact.address, emoji: emoji,
                                                      sentAt: Int64(clamping: sentAt)) else { return }
        try dependencies.emit(.reactionChanged(messageID: message.id, conversationID: conversation))
    }
}
