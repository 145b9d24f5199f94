import HushProtocol
import HushStore

/// Replies and reactions (docs/PROTOCOL.md §10.5), by the store id of the
/// message they are about: it must be stored here, and they go to its
/// conversation (the contact's or the group's).
extension Messenger {
    /// Sends `text` as a reply quoting message `messageId`, stores it and
    /// tries to deliver it once, as `sendReportingDelivery` does.
    public func reply(toMessage messageId: Int64, text: String,
                      idempotencyKey: String? = nil) async throws -> (message: StoredMessage, refusedByRelay: Bool) {
        let (quoted, target) = try messageAndTarget(messageId)
        let body = ContentBody.reply(to: try MessageID(hex: quoted.clientMessageId), text: text)
        return try await sealTextAndFlush(text, idempotencyKey: idempotencyKey) {
            switch target {
            case let .group(name): try sealer.seal(body, toGroup: name, recordAs: text)
            case let .contact(name): try sealer.seal(body, to: name, recordAs: text)
            }
        }
    }

    /// Sets our reaction to message `messageId` (`nil` takes it away), sends
    /// it to the conversation and records it here, then tries to deliver it
    /// once. An emoji `ReactionEmoji` refuses is `invalidReaction`, and
    /// nothing is sent.
    public func react(toMessage messageId: Int64, emoji: String?) async throws {
        if let emoji, !ReactionEmoji.isAcceptable(emoji) {
            throw MessengerError.invalidReaction(limit: ContentLimits.maxReactionLength)
        }
        let (message, target) = try messageAndTarget(messageId)
        let body = ContentBody.reaction(to: try MessageID(hex: message.clientMessageId), emoji: emoji)
        try store.write { store in
            switch target {
            case let .group(name): try sealer.sealControl(body, toGroup: name)
            case let .contact(name): try sealer.seal(body, to: name)
            }
            try store.reactions.record(messageId: message.id, reactor: identity.address.description, emoji: emoji, sentAt: clock.now())
        }
        await outgoing.flush()
    }

    /// What a history shows with its messages: the reactions standing on
    /// each, the messages replies quote (when stored, in the same
    /// conversation) by client id, and the contact of each reactor.
    public func decorations(of messages: [StoredMessage]) throws -> MessageDecorations {
        let reactions = try store.reactions.reactions(messageIds: messages.map(\.id))
        var quoted: [String: StoredMessage] = [:]
        for message in messages {
            guard let replyTo = message.replyTo, quoted[replyTo] == nil,
                  let original = try store.messages.message(clientMessageId: replyTo),
                  original.conversationId == message.conversationId else { continue }
            quoted[replyTo] = original
        }
        let reactors = Set(reactions.values.joined().map(\.reactor))
        var contacts: [String: Int64] = [:]
        if !reactors.isEmpty {
            for contact in try store.contacts.all() where reactors.contains(contact.address) { contacts[contact.address] = contact.id }
        }
        return MessageDecorations(reactions: reactions, quoted: quoted, contactIDs: contacts, ownAddress: identity.address.description)
    }

    /// A stored message and the conversation it is in, as a target.
    private func messageAndTarget(_ messageId: Int64) throws -> (StoredMessage, ConversationTarget) {
        guard let message = try store.messages.message(id: messageId) else { throw MessengerError.noSuchMessage(messageId) }
        return (message, try target(conversationID: message.conversationId))
    }
}

/// What `Messenger.decorations(of:)` finds for a page of history.
public struct MessageDecorations: Sendable {
    /// The reactions on each message, by store id (removals left out).
    public let reactions: [Int64: [StoredReaction]]
    /// The messages replies quote, by client message id, when stored in the reply's conversation.
    public let quoted: [String: StoredMessage]
    /// The contact id of each reactor that is a contact, by address.
    public let contactIDs: [String: Int64]
    /// Our own address: reactions from it are ours.
    public let ownAddress: String
}
