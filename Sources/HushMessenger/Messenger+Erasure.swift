import HushProtocol
import HushStore

/// Deleting messages and disappearing-message timers (docs/PROTOCOL.md
/// §10.7), by the store id of a message and the name of a conversation.
extension Messenger {
    /// Deletes message `messageId`: here only, or, `forEveryone`, also on
    /// every recipient's device (only our own message, within
    /// `ContentLimits.deletionWindow` of when we sent it: otherwise
    /// `notOwnMessage` or `deletionWindowPassed`, and nothing is sent or
    /// erased). Its text, attachment file and search entry go; history
    /// keeps a tombstone shown as deleted. Then tries to deliver once.
    public func delete(message messageId: Int64, forEveryone: Bool) async throws {
        guard let message = try store.messages.message(id: messageId) else { throw MessengerError.noSuchMessage(messageId) }
        guard !message.isErased else { throw MessengerError.alreadyDeleted(messageId) }
        guard forEveryone else {
            try erasure.erase(messageId, as: .deleted)
            return
        }
        guard message.direction == .outgoing else { throw MessengerError.notOwnMessage(messageId) }
        guard clock.now() - message.createdAt <= Int64(ContentLimits.deletionWindow) else {
            throw MessengerError.deletionWindowPassed(hours: Int(ContentLimits.deletionWindow / 3_600_000))
        }
        let body = ContentBody.deletion(of: try MessageID(hex: message.clientMessageId))
        let target = try target(conversationID: message.conversationId)
        _ = try store.write { _ in
            switch target {
            case let .group(name): try sealer.sealControl(body, toGroup: name)
            case let .contact(name): try sealer.seal(body, to: name)
            }
            // Whatever of it is still queued stays queued: a receiver that
            // gets the message after the deletion stores it deleted.
        }
        try erasure.erase(messageId, as: .deleted)
        await outgoing.flush()
    }

    /// Sets the disappearing-message timer of the conversation with
    /// `target` (a contact or a group) to `seconds` (0 = off): stored here
    /// and sent to the conversation as a change both sides see in history.
    /// Messages sent from then on carry it. Returns the change as stored.
    @discardableResult
    public func setDisappearingTimer(_ seconds: UInt32, for target: String) async throws -> StoredMessage {
        guard seconds <= ContentLimits.maxDisappearingSeconds else {
            throw MessengerError.invalidDisappearingTimer(maxSeconds: ContentLimits.maxDisappearingSeconds)
        }
        let text = DisappearingTimer.change(to: seconds)
        let resolved = try resolve(target)
        let result = try await sealTextAndFlush(text) {
            let conversation: Int64, id: MessageID
            switch resolved {
            case let .group(name):
                id = try sealer.seal(.disappearingTimer(seconds: seconds), toGroup: name, recordAs: text)
                conversation = try sealer.conversationForSending(to: "group:" + name)
            case let .contact(name):
                id = try sealer.seal(.disappearingTimer(seconds: seconds), to: name, recordAs: text)
                conversation = try sealer.conversationForSending(to: "contact:" + name)
            }
            try store.conversations.setDisappearingTimer(Int64(seconds), conversationId: conversation)
            try sealer.dependencies.emit(.disappearingTimerChanged(conversationID: conversation, seconds: seconds == 0 ? nil : Int64(seconds)))
            return id
        }
        return result.message
    }

    /// The disappearing-message timer of conversation `id` in seconds, nil when off.
    public func disappearingTimer(conversationID id: Int64) throws -> Int64? {
        try store.conversations.disappearingTimer(conversationId: id)
    }

    /// Erases the messages whose timer ran out (see `MessageErasure.sweepExpired`);
    /// a front end runs it when it opens an account. Returns how many went.
    @discardableResult
    public func sweepExpired() -> Int {
        erasure.sweepExpired()
    }
}
