import HushMessenger
import HushProtocol

/// A group conversation and its members, as this device knows them.
public struct Group: Sendable, Equatable, Identifiable {
    /// The longest group name, in bytes of UTF-8 (it travels in the group's state).
    public static let maxNameBytes = GroupLimits.maxNameLength

    /// One member of a group.
    public struct Member: Sendable, Equatable {
        /// The account's contact for the member, nil for the account itself.
        public let contact: ContactID?
        /// The member's name in this account ("you" for the account itself).
        public let name: String
        /// The member's address (hush1…).
        public let address: String
        /// Whether the member may change the group.
        public let isAdmin: Bool
        /// Whether this member is the account itself.
        public let isYou: Bool
        /// Whether the member ever wrote to the account: one who has not may
        /// not have accepted it yet, and then the invitation waits with them.
        public let hasAnswered: Bool
        /// Whether the user compared safety numbers with the member; nil
        /// for the account itself and for members who are not contacts.
        public let verification: Contact.Verification?
        /// Whether this device holds the member's key for the group's current
        /// epoch (until it does, their newest messages wait at the relay).
        public let hasKey: Bool
    }

    /// Whether the account is still in the group.
    public enum Standing: String, Sendable {
        /// The account is a member.
        case member
        /// The account left the group.
        case left
        /// An admin removed the account.
        case removed
    }

    /// Groups are conversations: this is the group's conversation id.
    public let id: ConversationID
    /// The group's name, as the account shows it (made unique among its groups).
    public let name: String
    /// Counts membership changes (each one re-keys the group).
    public let epoch: UInt32
    /// Whether the account is still in the group.
    public let standing: Standing
    /// Every member, the account included.
    public let members: [Member]
    /// Whether the account may add, remove and promote members.
    public var youAreAdmin: Bool { members.contains { $0.isYou && $0.isAdmin } }

    init(_ summary: GroupSummary, id: ConversationID, contacts: [String: ContactID]) {
        self.id = id
        name = summary.name
        epoch = summary.epoch
        standing = Standing(rawValue: summary.standing.rawValue) ?? .member
        members = summary.members.map { member in
            Member(contact: member.isYou ? nil : contacts[member.address], name: member.name, address: member.address,
                   isAdmin: member.isAdmin, isYou: member.isYou, hasAnswered: member.hasAnswered,
                   verification: member.verification.flatMap { Contact.Verification(rawValue: $0.rawValue) }, hasKey: member.hasKey)
        }
    }
}
