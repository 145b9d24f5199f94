import HushStore

/// A published event with its place in the durable event log: `seq` is
/// the log row stored with the change (nil for live-only events: the
/// connection, a failed sync, `missed`).
public struct MessengerEventRecord: Sendable, Equatable {
    public let seq: Int64?
    public let event: MessengerEvent
    /// When it was stored (milliseconds since 1970).
    public let createdAt: Milliseconds

    public init(seq: Int64?, event: MessengerEvent, createdAt: Milliseconds) {
        self.seq = seq
        self.event = event
        self.createdAt = createdAt
    }
}

extension MessengerEvent {
    /// What the event log keeps of this event, or nil for a live-only one.
    /// The one place that decides which kinds are durable: a new case is
    /// added here.
    public var logEntry: EventEntry? {
        switch self {
        case let .received(message, _), let .groupReceived(message, _, _):
            EventEntry(.received, messageId: message.id, conversationId: message.conversationId)
        case let .request(message, _, contactID):
            EventEntry(.request, messageId: message.id, conversationId: message.conversationId, contactId: contactID)
        case let .statusChanged(_, status, _, messageID, conversationID):
            EventEntry(.statusChanged, messageId: messageID, conversationId: conversationID, detail: status.rawValue)
        case let .typing(_, active, contactID):
            EventEntry(.typing, contactId: contactID, detail: active ? EventEntry.typingActive : EventEntry.typingIdle)
        case let .reactionChanged(messageID, conversationID):
            EventEntry(.reactionChanged, messageId: messageID, conversationId: conversationID)
        case let .groupChanged(_, conversationID):
            EventEntry(.groupChanged, conversationId: conversationID)
        case let .resent(_, _, messageID):
            EventEntry(.resent, messageId: messageID)
        case let .quarantined(reason, senderAsked):
            EventEntry(senderAsked ? .awaitingResend : .quarantined, detail: reason)
        case let .messageEdited(messageID, conversationID):
            EventEntry(.edited, messageId: messageID, conversationId: conversationID)
        case let .messageErased(messageID, conversationID):
            EventEntry(.erased, messageId: messageID, conversationId: conversationID)
        case let .disappearingTimerChanged(conversationID, seconds):
            EventEntry(.timerChanged, conversationId: conversationID, detail: seconds.map(String.init))
        case let .attachmentChanged(attachmentID, messageID, conversationID, state):
            EventEntry(.fileChanged, messageId: messageID, conversationId: conversationID, attachmentId: attachmentID, detail: state.rawValue)
        case .connection, .missed, .syncFailed:
            nil
        }
    }
}
