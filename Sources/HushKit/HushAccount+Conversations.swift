import HushMessenger
import HushStore

/// The lobby: the conversation list, rooms, search.
extension HushAccount {
    /// Conversations, most recent first, without message requests (see
    /// `messageRequests()`) and blocked contacts.
    public func conversations() async throws(HushError) -> [Conversation] {
        // Chosen in the query: listing the requests to leave them out read each request's whole conversation.
        try await guarded { try await messenger.conversations(standing: .accepted).map(Conversation.init) }
    }

    /// The room of conversation `id`.
    public func room(_ id: ConversationID) async throws(HushError) -> Room {
        try await guarded {
            _ = try await messenger.target(conversationID: id.rawValue)
            return Room(id: id, account: self)
        }
    }

    /// The room of the conversation with a contact (made when there is none yet).
    public func room(with contact: ContactID) async throws(HushError) -> Room {
        try await guarded {
            Room(id: ConversationID(rawValue: try await messenger.conversationID(contactID: contact.rawValue)), account: self)
        }
    }

    /// What conversation `id` is called, in one read: its contact's name for a
    /// one-to-one conversation, the group's name for a group's. (An event's
    /// reader wants only this; `room(_:)` and `Room.group()` read more.)
    public func title(of id: ConversationID) async throws(HushError) -> ConversationTitle {
        try await guarded {
            switch try await messenger.target(conversationID: id.rawValue) {
            case let .contact(name): return .contact(name: name)
            case let .group(name): return .group(name: name)
            }
        }
    }

    /// The message with id `id`, or nil once it is gone.
    public func message(_ id: MessageID) async throws(HushError) -> Message? {
        try await guarded {
            guard let (stored, decorations) = try await messenger.decoratedMessage(id: id.rawValue) else { return nil }
            return Message(stored, decorations: decorations)
        }
    }

    /// Messages with their replies' quotes and their reactions filled in.
    func decorated(_ stored: [StoredMessage]) async throws -> [Message] {
        let decorations = try await messenger.decorations(of: stored)
        return stored.map { Message($0, decorations: decorations) }
    }

    /// Full-text search over every conversation's messages, best matches first.
    public func search(_ query: String, limit: Int = 20) async throws(HushError) -> [SearchResult] {
        try await guarded {
            try await messenger.search(query, limit: max(0, limit)).map { SearchResult(message: Message($0.message), snippet: $0.snippet) }
        }
    }
}
