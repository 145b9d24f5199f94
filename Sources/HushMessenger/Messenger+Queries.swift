import HushStore

/// What the CLI shows: read-only queries over the store.
extension Messenger {
    /// Every conversation, newest first; with `standing`, only those whose
    /// contact stands so (a group's counts as accepted).
    public func conversations(standing: ContactStanding? = nil) throws -> [ConversationSummary] {
        try store.conversations.list(standing: standing)
    }

    /// Conversation `id` as the list shows it, or nil when there is none.
    public func conversation(id: Int64) throws -> ConversationSummary? {
        try store.conversations.summary(id: id)
    }

    public func contacts() throws -> [Contact] {
        try store.contacts.all()
    }

    /// Pending and failed outbox requests.
    public func outbox() throws -> [OutboxItem] {
        try outgoing.waiting()
    }

    public func search(_ query: String, limit: Int = 20) throws -> [SearchHit] {
        try store.messages.search(query, limit: limit)
    }

    public func relayCursor() throws -> Int64 {
        try store.settings.syncCursor() ?? 0
    }

    /// A page of the conversation with `name`, oldest first (keyset pagination).
    public func history(with target: String, before: Int64? = nil, after: Int64? = nil, limit: Int = 50) throws -> [StoredMessage] {
        switch try resolve(target) {
        case let .group(group): return try groupHistory(group, before: before, after: after, limit: limit)
        case let .contact(name): return try conversationLog.history(with: name, before: before, after: after, limit: limit)
        }
    }

    /// Client message ids of the messages to `name` resent after a decryption error.
    public func resentMessages(in target: String) throws -> [String] {
        guard case let .contact(name) = try resolve(target) else { return [] }
        return try conversationLog.resentMessages(in: name)
    }

    /// The contact name of a conversation, for listing search hits.
    public func contactName(conversationId: Int64) throws -> String? {
        if let group = try store.groups.group(conversationId: conversationId) { return "group:" + group.name }
        return try store.contacts.contact(conversationId: conversationId)?.name
    }

    public func storageUsage() throws -> [StorageUsage] {
        try store.conversations.storageUsage()
    }

    public func quarantined() throws -> [QuarantineRepository.Entry] {
        try store.quarantine.all()
    }

    public func doctor() throws -> DoctorReport {
        try store.doctor()
    }
}
