import HushMessenger
import HushStore

/// Reading the local history: the conversation list, pages, search, outbox.
extension MessagingClient {
    /// The conversation list without message requests (listed by `requests`)
    /// and blocked contacts (listed nowhere), with how many requests wait.
    public func conversationList() async throws -> (conversations: [ConversationSummary], requests: Int) {
        let unaccepted = Set(try await (messenger.messageRequests() + messenger.messageRequests(blocked: true)).map(\.contact.id))
        let conversations = try await messenger.conversations().filter { $0.contactId.map { !unaccepted.contains($0) } ?? true }
        let requests = try await messenger.messageRequests().count
        return (conversations, requests)
    }

    /// A page of the conversation with `contact`, and the client ids of the
    /// messages in it that were sent again because the contact could not decrypt them.
    public func history(with contact: String, before: Int64? = nil, after: Int64? = nil,
                        limit: Int = 50) async throws -> (messages: [StoredMessage], resent: Set<String>) {
        let page = try await messenger.history(with: contact, before: before, after: after, limit: limit)
        let resent = Set(try await messenger.resentMessages(in: contact))
        return (page, resent)
    }

    /// Marks the conversation read and sends the read receipts owed.
    public func markRead(contact: String) async throws {
        _ = try await messenger.markRead(contact: contact)
    }

    /// Full-text hits with the name of the contact each belongs to ("?" when gone).
    public func search(_ query: String, limit: Int) async throws -> [(hit: SearchHit, contact: String)] {
        var results: [(hit: SearchHit, contact: String)] = []
        for hit in try await messenger.search(query, limit: limit) {
            results.append((hit, try await messenger.contactName(conversationId: hit.message.conversationId) ?? "?"))
        }
        return results
    }

    /// Messages the relay has not accepted yet.
    public func outbox() async throws -> [OutboxItem] {
        try await messenger.outbox()
    }
}
