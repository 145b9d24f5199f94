import HushProtocol
import HushStore

/// Received deletions and timers (docs/PROTOCOL.md §10.7): a deletion counts
/// only from the author of the message it names, within the deletion
/// window; a timer change only from someone in the conversation (checked by
/// the caller for a group).
extension ContentApplier {
    /// `contact` deletes its message `target` of `conversation` for everyone.
    /// Ignored (nothing changes) when the message is not the contact's, is in
    /// another conversation, or the deletion was sent past the window after
    /// the message (both times are the author's clock). A message not stored
    /// (yet) is remembered as deleted, so it is stored as a tombstone if it
    /// arrives later (envelopes are not always opened in the order they were
    /// sent: a group message may wait for its sender's key).
    func applyDeletion(of target: MessageID, sentAt: UInt64, from contact: Contact, conversation: Int64) throws {
        let now = dependencies.clock.now()
        guard let message = try store.messages.message(clientMessageId: target.description) else {
            try store.messages.rememberEarlyDeletion(clientMessageId: target.description, sender: contact.address, at: now)
            return
        }
        guard message.conversationId == conversation, message.direction == .incoming, message.sender == contact.address,
              !message.isErased,
              sentAt >= UInt64(clamping: message.createdAt), sentAt - UInt64(clamping: message.createdAt) <= ContentLimits.deletionWindow
        else { return }
        try store.messages.erase(messageId: message.id, as: .deleted, at: now)
        try dependencies.emit(.messageErased(messageID: message.id, conversationID: conversation))
    }

    /// Stores message `id` as deleted when its author's deletion came first.
    /// Returns whether it did (the message is then not told as received).
    func eraseIfDeletedEarly(_ id: Int64, content: Content, from contact: Contact) throws -> Bool {
        guard try store.messages.takeEarlyDeletion(clientMessageId: content.id.description, sender: contact.address) else { return false }
        try store.messages.erase(messageId: id, as: .deleted, at: dependencies.clock.now())
        return true
    }

    /// Sets `conversation`'s timer as `contact` changed it, and tells live views.
    func setTimer(_ seconds: UInt32, conversation: Int64, from contact: Contact) throws {
        try store.conversations.setDisappearingTimer(Int64(seconds), conversationId: conversation)
        try dependencies.emit(.disappearingTimerChanged(conversationID: conversation, seconds: seconds == 0 ? nil : Int64(seconds)))
    }

    /// Starts the timers of our messages a read receipt from `contact`
    /// names (the first read receipt, in a group), from when the receipt
    /// was sent (never later than now): a home that was offline while the
    /// timer ran out removes the message at its next sweep.
    func startExpiryOfRead(_ ids: [MessageID], readAt sentAt: UInt64, from contact: Contact) throws {
        let time = min(dependencies.clock.now(), Int64(clamping: sentAt))
        for id in ids {
            guard let message = try store.messages.message(clientMessageId: id.description), message.direction == .outgoing,
                  message.expiresAfter != nil else { continue }
            // Only someone the message went to: the contact, or a member of its group.
            if try store.groups.group(conversationId: message.conversationId) != nil {
                guard try store.groups.receipts(messageId: message.id).contains(where: { $0.memberKey == contact.identityKey }) else { continue }
            } else {
                guard try store.contacts.contact(conversationId: message.conversationId)?.id == contact.id else { continue }
            }
            try store.messages.startExpiry(clientMessageId: id.description, conversationId: message.conversationId, readAt: time)
        }
    }
}
