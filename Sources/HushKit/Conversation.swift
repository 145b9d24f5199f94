import HushStore

/// One row of the conversation list.
public struct Conversation: Sendable, Equatable, Identifiable {
    public let id: ConversationID
    /// The contact a one-to-one conversation is with; nil for a group.
    public let contact: ContactID?
    /// The contact's or the group's name.
    public let title: String
    /// Received messages not marked read yet.
    public let unreadCount: Int
    /// When something last happened in it, in milliseconds since 1970.
    public let lastActivityAt: Int64?
    /// The newest message, for a one-line preview.
    public let lastMessage: Message?
    /// Whether this is a group conversation.
    public var isGroup: Bool { contact == nil }

    init(_ summary: ConversationSummary) {
        id = ConversationID(rawValue: summary.id)
        contact = summary.contactId.map(ContactID.init(rawValue:))
        title = summary.title
        unreadCount = summary.unreadCount
        lastActivityAt = summary.lastActivityAt
        lastMessage = summary.lastMessage.map { Message($0) }
    }
}

/// A message found by full-text search, with the part that matched.
public struct SearchResult: Sendable, Equatable {
    /// The message that matched.
    public let message: Message
    /// The matching part of the text, the search terms wrapped in `[` `]`.
    public let snippet: String
}
