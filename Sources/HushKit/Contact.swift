import HushStore

/// Someone the account talks to, known by the identity key in their address.
public struct Contact: Sendable, Equatable, Identifiable {
    /// Whether the user compared safety numbers with the contact.
    public enum Verification: String, Sendable {
        /// The user compared safety numbers with the contact and they matched.
        case verified
        /// Not compared yet.
        case unverified
        /// The contact's identity key changed: sending stops until the app
        /// accepts the new key (`HushAccount.acceptIdentityChange(of:)`).
        case changed
    }

    /// Whether the account accepted the contact.
    public enum Standing: String, Sendable {
        /// Added by the user, or a request they accepted.
        case accepted
        /// A stranger who wrote first: their messages are kept, nothing is sent back.
        case requested
        /// Their messages are dropped unread.
        case blocked
    }

    public let id: ContactID
    /// The name this account gave the contact (for a request: one made up
    /// from the address, until the user renames it).
    public let name: String
    /// Their address (hush1…): it contains their identity key.
    public let address: String
    /// Whether the user compared safety numbers with them.
    public let verification: Verification
    /// Whether the account accepted them.
    public let standing: Standing
    /// The display name they chose and sent, if they did: theirs to claim,
    /// so show it beside `name` and never instead of verifying them. It is
    /// the peer's text as sent (any UTF-8, control and bidirectional
    /// characters included): strip those before showing it in a terminal.
    public let profileName: String?
    /// When the contact was added, or first wrote (a request), in milliseconds since 1970.
    public let createdAt: Int64

    init(_ stored: HushStore.Contact) {
        id = ContactID(rawValue: stored.id)
        name = stored.name
        address = stored.address
        verification = Verification(rawValue: stored.verification.rawValue) ?? .unverified
        standing = Standing(rawValue: stored.standing.rawValue) ?? .requested
        profileName = stored.profileName
        createdAt = stored.createdAt
    }
}

/// A stranger's messages, waiting for the user to accept or block them.
public struct MessageRequest: Sendable, Equatable {
    /// The stranger, as a contact whose standing is `requested`.
    public let contact: Contact
    /// How many messages they sent so far.
    public let messageCount: Int
    /// The newest message, for a preview.
    public let lastMessage: Message?
    /// Names of the groups the stranger invites the account to (as they wrote
    /// them): joined when the request is accepted.
    public let groupInvitations: [String]
}
