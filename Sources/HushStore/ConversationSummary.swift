/// One row of the conversation list.
public struct ConversationSummary: Sendable, Equatable {
    public let id: Int64
    public let contactId: Int64?
    public let title: String
    public let unreadCount: Int
    public let lastActivityAt: Milliseconds?
    /// The last message in display order, for the one-line summary.
    public let lastMessage: StoredMessage?

    /// The last message's body cut to `length` characters on one line.
    public func summary(length: Int = 60) -> String {
        guard let body = lastMessage?.body else { return "" }
        let line = body.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count <= length ? line : String(line.prefix(length - 1)) + "…"
    }
}

/// How much a conversation's history takes on disk (estimated from the
/// stored bytes; SQLite page overhead and the search index come on top).
public struct StorageUsage: Sendable, Equatable {
    public let conversationId: Int64
    public let title: String
    public let messageCount: Int
    public let bytes: Int64
}

/// A full-text search hit.
public struct SearchHit: Sendable, Equatable {
    public let message: StoredMessage
    /// The matching part of the body, terms wrapped in `[` `]`.
    public let snippet: String
}
