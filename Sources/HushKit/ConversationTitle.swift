/// What a conversation is called, as `HushAccount.title(of:)` reads it:
/// by its contact's name, or by its group's.
public enum ConversationTitle: Sendable, Equatable {
    /// A one-to-one conversation, by the contact's current name.
    case contact(name: String)
    /// A group conversation, by the group's current name.
    case group(name: String)

    /// The name either way, as the conversation list shows it.
    public var name: String {
        switch self {
        case let .contact(name), let .group(name): return name
        }
    }

    /// Whether this is a group conversation.
    public var isGroup: Bool {
        if case .group = self { return true }
        return false
    }
}
