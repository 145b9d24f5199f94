import HushMessenger

/// Groups: listing and creating them (a group's own operations are on its `Room`).
extension HushAccount {
    /// Every group the account is or was in.
    public func groups() async throws(HushError) -> [Group] {
        try await guarded {
            var groups: [Group] = []
            for summary in try await messenger.groupList() { groups.append(try await group(summary)) }
            return groups
        }
    }

    /// Creates a group with the account as its admin and `members` (accepted
    /// contacts) in it; each member gets the invitation, sealed to them.
    public func createGroup(name: String, members: [ContactID]) async throws(HushError) -> Group {
        try await guarded {
            try await group(try await messenger.createGroup(name: name, members: try await contactNames(members)))
        }
    }

    /// Creates a large group (docs/PROTOCOL.md §18.4, up to 1 000 members):
    /// its state goes to each member and every member's key is derived from
    /// it, so creating it, adding or removing a member costs one envelope per
    /// member. Its messages are attributable to their author beyond the
    /// group (each carries its author's signature by identity key), carry no
    /// receipts, and are texts, replies and files only.
    public func createLargeGroup(name: String, members: [ContactID]) async throws(HushError) -> Group {
        try await guarded {
            try await group(try await messenger.createGroup(name: name, members: try await contactNames(members), large: true))
        }
    }

    /// The name to show for an address, as a group's member list and its
    /// history show senders: "you" for the account, a contact's name, else
    /// the address itself (a member who is not a contact, or a former member).
    public func name(of address: String) async throws(HushError) -> String {
        try await guarded { try await messenger.memberName(address: address) }
    }

    /// The names the messenger's group operations take.
    func contactNames(_ ids: [ContactID]) async throws -> [String] {
        var names: [String] = []
        for id in ids { names.append(try await messenger.contact(id: id.rawValue).name) }
        return names
    }

    /// A summary with ids: the group's conversation, and the contact of each member.
    func group(_ summary: GroupSummary) async throws -> Group {
        let contacts = Dictionary(try await messenger.contacts().map { ($0.address, ContactID(rawValue: $0.id)) }, uniquingKeysWith: { first, _ in first })
        guard let conversation = try await messenger.groupConversationID(summary.name) else { throw MessengerError.unknownGroup(summary.name) }
        return Group(summary, id: ConversationID(rawValue: conversation), contacts: contacts)
    }
}
