import HushDatabase

/// A large group's chains (docs/PROTOCOL.md §18.4), one per member and
/// epoch, derived when a state is applied (schema version 30). Stored in
/// the protocol's local form (`LargeGroupChain.serialized`).
extension GroupRepository {
    /// Keeps (or replaces) one member's chain for `epoch`.
    public func saveMemberChain(_ chain: [UInt8], epoch: UInt32, memberKey: [UInt8], groupRow: Int64) throws {
        try database.execute("INSERT OR REPLACE INTO member_chains(group_row, epoch, member_key, chain) VALUES (?, ?, ?, ?)",
                             [groupRow, Int64(epoch), memberKey, chain])
    }

    public func memberChain(epoch: UInt32, memberKey: [UInt8], groupRow: Int64) throws -> [UInt8]? {
        try database.queryFirst("SELECT chain FROM member_chains WHERE group_row = ? AND epoch = ? AND member_key = ?",
                                [groupRow, Int64(epoch), memberKey]) { try $0.get(0) }
    }

    /// Forgets every chain of one epoch (a state of the same epoch that supersedes it replaces them all).
    public func forgetMemberChains(epoch: UInt32, groupRow: Int64) throws {
        try database.execute("DELETE FROM member_chains WHERE group_row = ? AND epoch = ?", [groupRow, Int64(epoch)])
    }

    /// Members whose chain for `epoch` we hold.
    public func membersWithMemberChains(epoch: UInt32, groupRow: Int64) throws -> [[UInt8]] {
        try database.query("SELECT member_key FROM member_chains WHERE group_row = ? AND epoch = ?", [groupRow, Int64(epoch)]) {
            try $0.get(0)
        }
    }

    /// All recipients of a fan-out request with whether the relay took each,
    /// in one fixed order (by key), so a large group's request is split into
    /// parts of at most 255 the same way on every attempt.
    public func recipients(requestId: String) throws -> [(memberKey: [UInt8], deposited: Bool)] {
        try database.query("SELECT member_key, deposited FROM outbox_recipients WHERE request_id = ? ORDER BY member_key",
                           [requestId]) { row in (try row.get(0), try row.get(1, as: Int64.self) != 0) }
    }
}
