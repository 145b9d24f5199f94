import HushMessenger

/// Message requests: strangers who wrote first. Nothing goes back to them
/// (no receipt, no typing, no read mark) until the user accepts.
extension HushAccount {
    /// Requests waiting for a decision, the most recent first; with
    /// `blocked`, the contacts the user blocked instead (their messages are
    /// dropped unread), with what they sent before.
    public func messageRequests(blocked: Bool = false) async throws(HushError) -> [MessageRequest] {
        try await guarded { try await messenger.messageRequests(blocked: blocked).map(MessageRequest.init) }
    }

    /// Requests kept at once: a newer one takes the place of the one that waited longest.
    public static let maxMessageRequests = Messenger.defaultMaxMessageRequests

    /// How many requests were removed to make room for newer ones.
    public func messageRequestsRemovedForRoom() async throws(HushError) -> Int {
        try await guarded { try await messenger.messageRequestsRemovedForRoom() }
    }

    /// Accepts a request (or unblocks a contact), optionally under a name of
    /// the user's choosing, and joins the groups they invited the account to.
    public func acceptRequest(from id: ContactID, renameTo name: String? = nil) async throws(HushError) -> Contact {
        try await guarded {
            Contact(try await messenger.acceptRequest(name: try await messenger.contact(id: id.rawValue).name, renameTo: name))
        }
    }

    /// Blocks a contact: their further messages are dropped unread.
    public func block(_ id: ContactID) async throws(HushError) {
        try await guarded { try await messenger.block(name: try await messenger.contact(id: id.rawValue).name) }
    }
}

extension MessageRequest {
    init(_ request: HushMessenger.MessageRequest) {
        contact = Contact(request.contact)
        messageCount = request.messageCount
        lastMessage = request.lastMessage.map { Message($0) }
        groupInvitations = request.invitations
    }
}
