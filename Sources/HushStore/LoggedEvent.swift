/// What one durable event names: its kind and the ids of what changed.
/// Never message text or key material (see `Schema.addEventLog`).
public struct EventEntry: Sendable, Equatable {
    /// The kinds of event the log keeps. The raw values are stored: never
    /// change one, add a new case instead.
    public enum Kind: String, Sendable, CaseIterable {
        /// A message was stored (a contact's or a group member's).
        case received
        /// A stranger's message was stored as a message request.
        case request
        /// An outgoing message changed status (`detail` is the status).
        case statusChanged = "status"
        /// A contact started or stopped typing (`detail` is `active` or `idle`).
        case typing
        /// A reaction to a message was set, changed or taken away.
        case reactionChanged = "reaction"
        /// A group's members, admins or name changed.
        case groupChanged = "group"
        /// An outgoing message was sealed again and resent.
        case resent
        /// An envelope could not be decrypted and was set aside (`detail` is why).
        case quarantined
        /// An envelope could not be decrypted and was set aside, and its sender
        /// was asked to send it again (`detail` is why): what it held should follow.
        case awaitingResend = "awaiting-resend"
        /// A message's author edited it (docs/PROTOCOL.md §10.6).
        case edited
        /// A message was deleted or expired (§10.7).
        case erased
        /// A conversation's disappearing timer changed (`detail` is the seconds, absent when off).
        case timerChanged = "timer"
        /// A received file reached the end of its download: checked and kept,
        /// or refused (`attachmentId`; `detail` is the attachment's state).
        case fileChanged = "file"
    }

    public var kind: Kind
    public var messageId: Int64?
    public var conversationId: Int64?
    public var contactId: Int64?
    public var attachmentId: Int64?
    public var detail: String?

    public init(_ kind: Kind, messageId: Int64? = nil, conversationId: Int64? = nil, contactId: Int64? = nil,
                attachmentId: Int64? = nil, detail: String? = nil) {
        self.kind = kind
        self.messageId = messageId
        self.conversationId = conversationId
        self.contactId = contactId
        self.attachmentId = attachmentId
        self.detail = detail
    }

    /// `detail` of a typing event.
    public static let typingActive = "active", typingIdle = "idle"
}

/// One row of the event log: its sequence number, what it names, and when.
public struct LoggedEvent: Sendable, Equatable {
    /// Increasing with the commit order, never reused; not contiguous.
    public let seq: Int64
    public let entry: EventEntry
    public let createdAt: Milliseconds

    public init(seq: Int64, entry: EventEntry, createdAt: Milliseconds) {
        self.seq = seq
        self.entry = entry
        self.createdAt = createdAt
    }
}

/// A named subscriber's place in the log.
public struct EventCursor: Sendable, Equatable {
    public let subscriber: String
    /// The highest seq it acknowledged (0: none yet).
    public let acknowledgedSeq: Int64
    public let updatedAt: Milliseconds
}

/// When the log's rows may go.
public struct EventRetention: Sendable, Equatable {
    /// Rows every subscriber acknowledged go once they are this old.
    public var acknowledgedAge: Milliseconds
    /// Rows go once they are this old, acknowledged or not.
    public var maximumAge: Milliseconds
    /// The oldest rows go when the log holds more than this many.
    public var maximumCount: Int

    public init(acknowledgedAge: Milliseconds, maximumAge: Milliseconds, maximumCount: Int) {
        self.acknowledgedAge = acknowledgedAge
        self.maximumAge = maximumAge
        self.maximumCount = maximumCount
    }

    private static let day: Milliseconds = 86_400_000
    /// 7 days once acknowledged; at most 30 days or a million rows.
    public static let standard = EventRetention(acknowledgedAge: 7 * day, maximumAge: 30 * day, maximumCount: 1_000_000)
}
