import HushProtocol
import HushStore

/// What another device of our account sent (docs/PROTOCOL.md §20.11,
/// §20.17): a sent transcript of a content to a contact, or a group message
/// under that device's chain, applied in `conversation` as if this device
/// had sealed it. A text or file is an outgoing message under the same
/// client message id (a second copy changes nothing); a read receipt marks
/// the messages it names read here too; a reaction, an edit or a deletion
/// is ours. Nothing is sealed in answer. `label` names the conversation to
/// live views (the contact's or the group's name).
extension ContentApplier {
    /// `envelope` carried it to us: its relay id and time place the
    /// message among the others (a sent message is placed by the relay's
    /// id, §20.11), so it does not sort after everything as one never
    /// acknowledged would.
    /// `contact` is the contact a transcript was sent to (nil for a group
    /// message): its read receipt may name that contact's messages in a
    /// group as well as in their conversation.
    func applySentElsewhere(_ content: Content, conversation: Int64, label: String, inGroup: Bool = false, envelope: MailboxEnvelope,
                            expiresAfter: UInt32? = nil, contact: Contact? = nil) throws {
        let own = dependencies.identity.address.description
        let timer = expiresAfter.map(Int64.init)
        switch content.body {
        case let .expiring(seconds, inner):
            try applySentElsewhere(Content(id: content.id, sentAt: content.sentAt, body: inner), conversation: conversation, label: label,
                                   inGroup: inGroup, envelope: envelope, expiresAfter: seconds, contact: contact)
        case let .text(text):
            try storeSentElsewhere(text, contentType: "text/plain", content: content, envelope: envelope, label: label, inGroup: inGroup, conversation: conversation,
                                   expiresAfter: timer)
        case let .reply(quoted, text):
            try storeSentElsewhere(text, contentType: "text/plain", content: content, envelope: envelope, label: label, inGroup: inGroup, conversation: conversation,
                                   replyTo: quoted, expiresAfter: timer)
        case let .attachment(pointer):
            // The pointer is kept, so `hush fetch` downloads the file here as well.
            try storeSentElsewhere(StoredAttachment.summary(fileName: pointer.fileName, size: Int64(pointer.size)), contentType: "attachment",
                                   content: content, envelope: envelope, label: label, inGroup: inGroup, conversation: conversation, expiresAfter: timer) { messageId in
                try downloads.recordIncoming(pointer, messageId: messageId)
            }
        case let .disappearingTimer(seconds):
            try store.conversations.setDisappearingTimer(Int64(seconds), conversationId: conversation)
            try dependencies.emit(.disappearingTimerChanged(conversationID: conversation, seconds: seconds == 0 ? nil : Int64(seconds)))
            try storeSentElsewhere(DisappearingTimer.change(to: seconds), contentType: DisappearingTimer.contentType, content: content,
                                   envelope: envelope, label: label, inGroup: inGroup, conversation: conversation)
        case let .reaction(target, emoji):
            guard let message = try store.messages.message(clientMessageId: target.description), message.conversationId == conversation,
                  !message.isErased,
                  try store.reactions.record(messageId: message.id, reactor: own, emoji: emoji, sentAt: Int64(clamping: content.sentAt))
            else { return }
            try dependencies.emit(.reactionChanged(messageID: message.id, conversationID: conversation))
        case let .edit(target, text):
            // Our own message, under the rules the sending device checked (§10.6).
            guard let message = try store.messages.message(clientMessageId: target.description), message.conversationId == conversation,
                  message.direction == .outgoing,
                  EditRule.check(message, author: own, editedAt: Int64(clamping: content.sentAt),
                                 edits: try store.edits.count(messageId: message.id)) == nil else { return }
            let outcome = try store.edits.record(messageId: message.id, editId: content.id.description, body: text,
                                                 sentAt: Int64(clamping: content.sentAt), limit: ContentLimits.maxEditsPerMessage)
            if outcome == .applied { try dependencies.emit(.messageEdited(messageID: message.id, conversationID: conversation)) }
        case let .deletion(target):
            // Within the window the sending device checked (§10.7), on both devices' record of the message's time.
            guard let message = try store.messages.message(clientMessageId: target.description), message.conversationId == conversation,
                  message.direction == .outgoing, !message.isErased,
                  content.sentAt >= UInt64(clamping: message.createdAt),
                  content.sentAt - UInt64(clamping: message.createdAt) <= ContentLimits.deletionWindow,
                  try store.messages.erase(messageId: message.id, as: .deleted, at: dependencies.clock.now()) != nil else { return }
            try dependencies.emit(.messageErased(messageID: message.id, conversationID: conversation))
        case let .readReceipt(ids):
            // Read there, read here: every unread message up to the latest it names (as the reading device
            // marked them), in the contact's conversation and in groups, whose messages a device reads
            // with a receipt to each author (before, a group read on one device stayed unread on the others).
            let named = try ids.compactMap { try store.messages.message(clientMessageId: $0.description) }
                .filter { $0.direction == .incoming && ($0.conversationId == conversation || $0.sender == contact?.address) }
            for (readIn, messages) in Dictionary(grouping: named, by: \.conversationId) {
                guard let last = messages.max(by: { $0.id < $1.id }) else { continue }
                _ = try store.messages.markRead(upTo: last.id, in: readIn, at: dependencies.clock.now())
            }
        default:
            throw MessengerError.protocolFailure("another device of this account sent a content that is not copied between devices")
        }
    }

    /// Stores what another device of ours sent as an outgoing message of
    /// `conversation`, sent (the relay took it from that device), and tells
    /// live views that it arrived. A copy already here changes nothing.
    private func storeSentElsewhere(_ body: String, contentType: String, content: Content, envelope: MailboxEnvelope, label: String,
                                    inGroup: Bool, conversation: Int64, replyTo: MessageID? = nil, expiresAfter: Int64? = nil,
                                    alsoStore extra: (Int64) throws -> Void = { _ in }) throws {
        let message = NewMessage(conversationId: conversation, serverId: envelope.serverID, clientMessageId: content.id.description,
                                 direction: .outgoing, sender: dependencies.identity.address.description, body: body,
                                 contentType: contentType, status: .sent, createdAt: Int64(clamping: content.sentAt),
                                 relayTimestamp: envelope.relayTimestamp, replyTo: replyTo?.description, expiresAfter: expiresAfter)
        guard case let .inserted(id) = try store.messages.insert(message) else { return }
        try extra(id)
        // The members it went to, each with a receipt as the sending device keeps them: their receipts
        // reach every device of the account, and without these rows it showed "sent" here for good.
        if inGroup, let group = try store.groups.group(conversationId: conversation), !group.isLarge,
           let state = try? group.currentState() {
            for member in state.members.map(\.identityKey) where member != dependencies.identity.publicKey {
                try store.groups.recordReceipt(messageId: id, memberKey: member.rawRepresentation, status: "sent")
            }
        }
        guard let stored = try store.messages.message(id: id) else { return }
        // Told as a message that arrived (its direction says whose): an open chat draws it, as it
        // draws a contact's. A status event would not do: a chat cannot tell it from its own send's.
        try dependencies.emit(inGroup ? .groupReceived(stored, group: label, member: "you") : .received(stored, contact: label))
    }

    /// A group state another device of ours sent (§20.17).
    func applyGroupStateFromOwnDevice(_ state: GroupState, storedAt: Milliseconds) throws {
        try receivedGroupStates.applyFromOwnDevice(state, storedAt: storedAt)
    }

    /// Another device of ours left a group as a member (§20.17).
    func applyOwnLeave(groupID: [UInt8]) throws {
        try membership.applyOwnLeave(groupID: groupID)
    }
}
