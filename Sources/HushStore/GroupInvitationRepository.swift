import HushDatabase

/// A group invitation that waits for its sender's message request to be accepted.
public struct GroupInvitation: Sendable, Equatable {
    public let groupID: [UInt8]
    public let contactId: Int64
    /// The group's name as its admin wrote it (peer-chosen text).
    public let name: String
    /// The admin's encoded state.
    public let state: [UInt8]
    public let receivedAt: Milliseconds
}

/// Invitations kept while their sender is a message request (`Schema.addGroupInvitations`).
public struct GroupInvitationRepository {
    let database: Database

    private static let columns = "group_id, contact_id, name, state, received_at"

    private func decode(_ row: Row) throws -> GroupInvitation {
        GroupInvitation(groupID: try row.get(0), contactId: try row.get(1), name: try row.get(2), state: try row.get(3),
                        receivedAt: try row.get(4))
    }

    /// Keeps `state` as the invitation to its group (replacing an earlier one).
    public func keep(groupID: [UInt8], contactId: Int64, name: String, state: [UInt8], at time: Milliseconds) throws {
        try database.execute("INSERT OR REPLACE INTO group_invitations(\(Self.columns)) VALUES (?, ?, ?, ?, ?)",
                             [groupID, contactId, name, state, time])
    }

    public func invitation(groupID: [UInt8]) throws -> GroupInvitation? {
        try database.queryFirst("SELECT \(Self.columns) FROM group_invitations WHERE group_id = ?", [groupID], decode)
    }

    /// The invitations `contactId` sent, oldest first.
    public func invitations(contactId: Int64) throws -> [GroupInvitation] {
        try database.query("SELECT \(Self.columns) FROM group_invitations WHERE contact_id = ? ORDER BY received_at, group_id",
                           [contactId], decode)
    }

    public func all() throws -> [GroupInvitation] {
        try database.query("SELECT \(Self.columns) FROM group_invitations ORDER BY received_at, group_id", [], decode)
    }

    public func remove(groupID: [UInt8]) throws {
        try database.execute("DELETE FROM group_invitations WHERE group_id = ?", [groupID])
    }

    public func removeAll(contactId: Int64) throws {
        try database.execute("DELETE FROM group_invitations WHERE contact_id = ?", [contactId])
    }
}
