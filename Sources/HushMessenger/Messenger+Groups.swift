import HushCrypto
import HushProtocol
import HushStore

/// A group as `hush group list` and `hush group info` show it.
public struct GroupSummary: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        /// Our contact name for the member ("you" for ourselves).
        public let name: String
        public let address: String
        public let isAdmin: Bool
        public let isYou: Bool
        public let verification: VerificationState?
        /// Whether we hold the member's sender key for the current epoch.
        public let hasKey: Bool
        /// Whether the member ever wrote to us (we hold the delivery
        /// credential they hand over with their first envelope, or on
        /// accepting our request). A member who did not may not have accepted
        /// us: then our invitation waits in their message requests.
        public var hasAnswered: Bool = true
    }

    public let name: String
    public let epoch: UInt32
    public let standing: StoredGroup.Standing
    public let members: [Member]
    /// A large group (docs/PROTOCOL.md §18.4): chains derived from the
    /// state, messages attributable, no receipts.
    public var isLarge = false
    public var youAreAdmin: Bool { members.contains { $0.isYou && $0.isAdmin } }
}

/// What a name on the command line means: a contact or a group.
public enum ConversationTarget: Sendable, Equatable {
    case contact(String)
    case group(String)

    /// The name as `resolve` reads it without doubt (`contact:NAME` or `group:NAME`).
    public var qualifiedName: String {
        switch self {
        case let .contact(name): return "contact:" + name
        case let .group(name): return "group:" + name
        }
    }
}

extension Messenger {
    // MARK: Names

    /// `group:NAME` and `contact:NAME` say which; a bare name is a group's
    /// when no contact has it, a contact's otherwise, and an error when both do.
    public func resolve(_ name: String) throws -> ConversationTarget {
        if name.hasPrefix("group:") { return .group(String(name.dropFirst(6))) }
        if name.hasPrefix("contact:") { return .contact(String(name.dropFirst(8))) }
        let isGroup = try store.groups.group(named: name) != nil
        let isContact = try store.contacts.contact(named: name) != nil
        if isGroup && isContact { throw MessengerError.ambiguousName(name) }
        return isGroup ? .group(name) : .contact(name)
    }

    // MARK: Membership

    /// Creates a group of us (admin) and `members`. `large`: a large group
    /// (docs/PROTOCOL.md §18.4, up to 1 000 members): its state goes to each
    /// member (`n` envelopes) and every chain is derived from it, but its
    /// messages are attributable to their author beyond the group and carry
    /// no receipts; a small one (§18.1, up to 256) distributes every chain.
    @discardableResult
    public func createGroup(name: String, members: [String], large: Bool = false) async throws -> GroupSummary {
        guard !members.isEmpty else { throw MessengerError.groupRefused("name at least one contact to create a group with") }
        try registration.requireSealable()
        let group = try store.write { _ in
            large ? try largeGroups.create(name: name, memberNames: members) : try groups.create(name: name, memberNames: members)
        }
        await outgoing.flush()
        return try groupSummary(group.name)
    }

    @discardableResult
    public func addToGroup(_ name: String, members: [String]) async throws -> GroupSummary {
        try registration.requireSealable()
        let group = try store.write { _ in
            let group = try groups.group(named: name)
            return group.isLarge ? try largeGroups.add(group, memberNames: members) : try groups.add(name, memberNames: members)
        }
        await outgoing.flush()
        return try groupSummary(group.name)
    }

    @discardableResult
    public func removeFromGroup(_ name: String, member: String) async throws -> GroupSummary {
        try registration.requireSealable()
        let group = try store.write { _ in
            let group = try groups.group(named: name)
            return group.isLarge ? try largeGroups.remove(group, member: try largeMember(member, of: group)) : try groups.remove(name, memberName: member)
        }
        await outgoing.flush()
        return try groupSummary(group.name)
    }

    @discardableResult
    public func promoteInGroup(_ name: String, member: String) async throws -> GroupSummary {
        try registration.requireSealable()
        let group = try store.write { _ in
            let group = try groups.group(named: name)
            return group.isLarge ? try largeGroups.promote(group, member: try largeMember(member, of: group)) : try groups.promote(name, memberName: member)
        }
        await outgoing.flush()
        return try groupSummary(group.name)
    }

    @discardableResult
    public func renameGroup(_ name: String, to newName: String) async throws -> GroupSummary {
        try registration.requireSealable()
        let group = try store.write { _ in
            let group = try groups.group(named: name)
            return group.isLarge ? try largeGroups.rename(group, to: newName) : try groups.rename(name, to: newName)
        }
        await outgoing.flush()
        return try groupSummary(group.name)
    }

    public func leaveGroup(_ name: String) async throws {
        try registration.requireSealable()
        try store.write { _ in
            let group = try groups.group(named: name)
            if group.isLarge { try largeGroups.leave(group) } else { try groups.leave(name) }
        }
        await outgoing.flush()
    }

    public func groupList() throws -> [GroupSummary] {
        try store.groups.all().map { try groupSummary($0.name) }
    }

    public func groupSummary(_ name: String) throws -> GroupSummary {
        let group = try groups.group(named: name)
        if group.isLarge { return try largeGroupSummary(group) }
        let state = try groups.state(of: group)
        let keyed = Set(try store.groups.membersWithChains(epoch: state.epoch, groupRow: group.id))
        let me = identity.publicKey
        let members = try state.members.map { member -> GroupSummary.Member in
            if member.identityKey == me {
                return .init(name: "you", address: me.address.description, isAdmin: member.isAdmin, isYou: true, verification: nil,
                             hasKey: true)
            }
            let contact = try groups.contact(of: member.identityKey)
            let answered = try contact.map { try store.contacts.deliveryCredential(contactId: $0.id) != nil } ?? false
            return .init(name: contact?.name ?? member.label, address: member.identityKey.address.description, isAdmin: member.isAdmin,
                         isYou: false, verification: contact?.verification, hasKey: keyed.contains(member.identityKey.rawRepresentation),
                         hasAnswered: answered)
        }
        return GroupSummary(name: group.name, epoch: state.epoch, standing: group.standing, members: members)
    }

    /// A large group as `groupSummary` shows it: members without a contact
    /// by their address; `hasKey` whether we hold the member's derived chain.
    private func largeGroupSummary(_ group: StoredGroup) throws -> GroupSummary {
        let state = try sealer.largeGroupMessages.current(group).state
        let keyed = Set(try store.groups.membersWithMemberChains(epoch: state.epoch, groupRow: group.id))
        let me = identity.publicKey
        let members = try state.members.map { member -> GroupSummary.Member in
            let address = member.identityKey.address.description
            if member.identityKey == me {
                return .init(name: "you", address: address, isAdmin: member.isAdmin, isYou: true, verification: nil, hasKey: true)
            }
            let contact = try groups.contact(of: member.identityKey)
            return .init(name: contact?.name ?? address, address: address, isAdmin: member.isAdmin, isYou: false,
                         verification: contact?.verification, hasKey: keyed.contains(member.identityKey.rawRepresentation),
                         hasAnswered: contact != nil)
        }
        var summary = GroupSummary(name: group.name, epoch: state.epoch, standing: group.standing, members: members)
        summary.isLarge = true
        return summary
    }

    /// A member of a large group named by contact name or address.
    private func largeMember(_ name: String, of group: StoredGroup) throws -> IdentityKey {
        if let contact = try store.contacts.contact(named: name) { return try IdentityKey(rawRepresentation: contact.identityKey) }
        guard let key = try? HushAddress(parsing: name).identityKey else { throw MessengerError.unknownContact(name) }
        return key
    }

    // MARK: Messages

    /// Sends `text` to the group `name` (see `send(text:to:)`).
    public func sendReportingDelivery(text: String, toGroup name: String,
                                      idempotencyKey: String? = nil) async throws -> (message: StoredMessage, refusedByRelay: Bool) {
        // A large group we lost our place in (a restore) asks for a new state first, committed apart from the refused send (§18.4).
        if try store.write({ _ in try largeGroups.askForNewStates(only: name) }) > 0 {
            await outgoing.flush()
            throw LargeGroupMessages.waitingForNewState(try groups.group(named: name))
        }
        return try await sealTextAndFlush(text, idempotencyKey: idempotencyKey) { try sealer.seal(.text(text), toGroup: name, recordAs: text) }
    }

    /// How many of the members a group message went to have it, and have read it.
    public func groupReceipts(messageId: Int64) throws -> (members: Int, delivered: Int, read: Int) {
        let receipts = try store.groups.receipts(messageId: messageId)
        return (receipts.count, receipts.filter { $0.status != "sent" }.count, receipts.filter { $0.status == "read" }.count)
    }

    /// The group a conversation belongs to, if any (for listings).
    public func groupName(conversationId: Int64) throws -> String? {
        try store.groups.group(conversationId: conversationId)?.name
    }

    /// A page of a group's history, oldest first.
    public func groupHistory(_ name: String, before: Int64? = nil, after: Int64? = nil, limit: Int = 50) throws -> [StoredMessage] {
        let group = try groups.group(named: name)
        return try store.messages.history(conversationId: group.conversationId, before: before, after: after, limit: limit)
    }

    /// The member name for a group message's sender address ("you" for ours).
    public func memberName(address: String) throws -> String {
        if address == identity.address.description { return "you" }
        guard let key = try? HushAddress(parsing: address).identityKey, let contact = try groups.contact(of: key) else { return address }
        return contact.name
    }

    /// Marks a group's messages read and sends each sender, pairwise, a read receipt.
    @discardableResult
    public func markGroupRead(_ name: String, upTo messageId: Int64? = nil) async throws -> Int {
        let group = try groups.group(named: name)
        let marked: Int = try store.write { store in
            let unread = try store.messages.unreadIncoming(conversationId: group.conversationId, upTo: messageId)
            guard let last = unread.last else { return 0 }
            _ = try store.messages.markRead(upTo: last.id, in: group.conversationId, at: clock.now())
            // A large group sends no receipts (§18.4); a replaced home seals nothing (§19.4).
            guard !group.isLarge, !registration.isKnownReplaced else { return unread.count }
            for (sender, messages) in Dictionary(grouping: unread, by: \.sender) {
                guard let key = try? HushAddress(parsing: sender).identityKey, let contact = try groups.contact(of: key),
                      contact.standing == .accepted, contact.verification != .changed,
                      try PrimarySession.exists(for: contact, sealer.dependencies) else { continue }
                for chunk in stride(from: 0, to: messages.count, by: ContentLimits.maxReceiptIDs) {
                    let ids = try messages[chunk..<min(chunk + ContentLimits.maxReceiptIDs, messages.count)]
                        .map { try MessageID(bytes: Hex.decode($0.clientMessageId)) }
                    try sealer.seal(.readReceipt(ids), to: contact.name)
                }
            }
            return unread.count
        }
        if marked > 0 { await outgoing.flush() }
        return marked
    }
}
