import HushMessenger
import HushStore

/// Group conversations: membership changes, listings, per-member receipts.
/// Sending, history, search and marking read take a group's name like a
/// contact's (`group:NAME` or `contact:NAME` when both exist).
extension MessagingClient {
    public func createGroup(name: String, members: [String]) async throws -> GroupSummary {
        try await messenger.createGroup(name: name, members: members)
    }

    public func addToGroup(_ name: String, members: [String]) async throws -> GroupSummary {
        try await messenger.addToGroup(name, members: members)
    }

    public func removeFromGroup(_ name: String, member: String) async throws -> GroupSummary {
        try await messenger.removeFromGroup(name, member: member)
    }

    public func promoteInGroup(_ name: String, member: String) async throws -> GroupSummary {
        try await messenger.promoteInGroup(name, member: member)
    }

    public func renameGroup(_ name: String, to newName: String) async throws -> GroupSummary {
        try await messenger.renameGroup(name, to: newName)
    }

    public func leaveGroup(_ name: String) async throws {
        try await messenger.leaveGroup(name)
    }

    public func groups() async throws -> [GroupSummary] {
        try await messenger.groupList()
    }

    public func group(_ name: String) async throws -> GroupSummary {
        try await messenger.groupSummary(name)
    }

    /// Whether `name` means a group (and its plain name) or a contact.
    public func target(_ name: String) async throws -> ConversationTarget {
        try await messenger.resolve(name)
    }

    /// "delivered to 3 of 4, read by 2 of 4" counts for a group message.
    public func groupReceipts(messageId: Int64) async throws -> (members: Int, delivered: Int, read: Int) {
        try await messenger.groupReceipts(messageId: messageId)
    }

    /// The member name a group message's sender address stands for.
    public func memberName(address: String) async throws -> String {
        try await messenger.memberName(address: address)
    }
}
