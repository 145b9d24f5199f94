import HushMessenger

/// Something that changed in the account, told after it was stored.
///
/// Events carry ids: read what they name from the account
/// (`HushAccount.message(_:)`, `room(_:)`, …) to show it. An event is
/// published only once the change it tells of has committed, so what it
/// names can always be read.
public enum HushEvent: Sendable, Equatable {
    /// A message was stored in a conversation (a contact's or a group's):
    /// one written to this account, a copy of one another device of this
    /// account sent, or one written on this home (by this app or any other
    /// process using it, as it is queued); the last two are outgoing.
    case messageReceived(MessageID, in: ConversationID)
    /// A stranger wrote: a message request waits (`HushAccount.messageRequests()`).
    case messageRequest(MessageID, from: ContactID, in: ConversationID)
    /// An outgoing message moved on (sent, delivered, read) or failed.
    case statusChanged(MessageID, in: ConversationID, to: Message.Status)
    /// A contact started or stopped typing.
    case typing(ContactID, isTyping: Bool)
    /// Someone's reaction to a message was set, changed or taken away:
    /// read the message again (`HushAccount.message(_:)`) for its `reactions`.
    case reactionChanged(MessageID, in: ConversationID)
    /// A message's author edited it: read it again (`HushAccount.message(_:)`)
    /// for its new `text` and `editedAt`.
    case messageEdited(MessageID, in: ConversationID)
    /// A message was deleted (here, or by its author for everyone) or its
    /// disappearing timer ran out: read it again for `Message.isDeleted`
    /// (an expired one is gone from history: drop it from the screen).
    case messageDeleted(MessageID, in: ConversationID)
    /// A conversation's disappearing-message timer changed (seconds; nil = off),
    /// by the account or someone in it (their change also arrives as a
    /// `.timerChange` message).
    case disappearingTimerChanged(ConversationID, seconds: Int64?)
    /// A group's members, admins or name changed, or the account was removed.
    case groupChanged(ConversationID)
    /// A contact could not decrypt an outgoing message; it was sealed again and resent.
    case resent(MessageID)
    /// Something arrived that could not be decrypted and was set aside.
    case undecryptable(reason: String)
    /// Something arrived that could not be decrypted yet and was set aside,
    /// and its sender was asked to send it again (docs/PROTOCOL.md §10.1):
    /// what it held should follow as a message of its own. Expected once
    /// after two sides started a session at the same moment (crossed first
    /// messages, as when a device was just linked); show it as a notice,
    /// not as an error.
    case awaitingResend(reason: String)
    /// A received file's download ended: checked and kept, or refused because
    /// it did not verify. Read `HushAccount.attachment(_:)` for its `state`
    /// (and `lastError`). Durable, unlike `transferProgress`: a client that
    /// was not listening learns from the log that a file (downloaded
    /// automatically, say) is ready.
    case fileChanged(AttachmentID, of: MessageID, in: ConversationID)
    /// A file transfer this account started moved on.
    case transferProgress(TransferProgress)
    /// The live connection to the relay came up (after catching up) or went down.
    case connectionChanged(online: Bool)
    /// Taking in what arrived on the live connection failed (the store could
    /// not take it, or the relay failed mid-way). Nothing was acknowledged:
    /// the relay keeps it, and the next push or reconnect tries again.
    case syncFailed(HushError)
    /// This subscriber fell behind and did not receive `count` events. What
    /// they told of is stored: read what the app shows again.
    case missed(count: Int)

    /// The messenger's event in HushKit's terms.
    init(_ event: MessengerEvent) {
        switch event {
        case let .received(message, _), let .groupReceived(message, _, _):
            self = .messageReceived(MessageID(rawValue: message.id), in: ConversationID(rawValue: message.conversationId))
        case let .request(message, _, contactID):
            self = .messageRequest(MessageID(rawValue: message.id), from: ContactID(rawValue: contactID),
                                   in: ConversationID(rawValue: message.conversationId))
        case let .statusChanged(_, status, _, messageID, conversationID):
            self = .statusChanged(MessageID(rawValue: messageID), in: ConversationID(rawValue: conversationID),
                                  to: Message.Status(rawValue: status.rawValue) ?? .failed)
        case let .typing(_, active, contactID):
            self = .typing(ContactID(rawValue: contactID), isTyping: active)
        case let .reactionChanged(messageID, conversationID):
            self = .reactionChanged(MessageID(rawValue: messageID), in: ConversationID(rawValue: conversationID))
        case let .messageEdited(messageID, conversationID):
            self = .messageEdited(MessageID(rawValue: messageID), in: ConversationID(rawValue: conversationID))
        case let .messageErased(messageID, conversationID):
            self = .messageDeleted(MessageID(rawValue: messageID), in: ConversationID(rawValue: conversationID))
        case let .disappearingTimerChanged(conversationID, seconds):
            self = .disappearingTimerChanged(ConversationID(rawValue: conversationID), seconds: seconds)
        case let .groupChanged(_, conversationID):
            self = .groupChanged(ConversationID(rawValue: conversationID))
        case let .attachmentChanged(attachmentID, messageID, conversationID, _):
            self = .fileChanged(AttachmentID(rawValue: attachmentID), of: MessageID(rawValue: messageID),
                                in: ConversationID(rawValue: conversationID))
        case let .resent(_, _, messageID):
            self = .resent(MessageID(rawValue: messageID))
        case let .quarantined(reason, senderAsked):
            self = senderAsked ? .awaitingResend(reason: reason) : .undecryptable(reason: reason)
        case let .connection(online):
            self = .connectionChanged(online: online)
        case let .syncFailed(failure):
            self = .syncFailed(HushError(wrapping: failure.error))
        case let .missed(count):
            self = .missed(count: count)
        }
    }
}
