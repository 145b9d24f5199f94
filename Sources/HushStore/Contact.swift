/// Whether the user has compared safety numbers with a contact.
public enum VerificationState: String, Sendable, CaseIterable {
    case verified
    case unverified
    /// The contact's identity key changed: sending stops until the user
    /// accepts the pending key.
    case changed
}

/// Whether the user accepted a contact (`hush contact add`, or accepting a
/// message request), has not decided yet on a stranger who wrote first, or
/// blocked them.
public enum ContactStanding: String, Sendable, CaseIterable {
    case accepted
    /// A stranger wrote first: their messages are kept, nothing is sent back.
    case requested
    /// Their envelopes are dropped unread.
    case blocked
}

public struct Contact: Sendable, Equatable {
    public let id: Int64
    public var name: String
    public var address: String
    public var identityKey: [UInt8]
    public var verification: VerificationState
    /// A new identity key seen for this contact, waiting for the user's decision.
    public var pendingIdentityKey: [UInt8]?
    public let createdAt: Milliseconds
    public var standing: ContactStanding = .accepted
    /// The display name the contact chose and sent us (theirs to choose:
    /// shown beside `name`, never instead of it or of verifying them).
    public var profileName: String? = nil
}
