/// The on-screen order of a conversation as one sortable integer:
/// acknowledged messages by the relay's server id (a local notice no
/// envelope carried right after what was there when it was written, `local(after:)`),
/// then pending (and failed, never acknowledged) messages by their client
/// `createdAt`, always after every acknowledged one. Ties break on the local id.
///
/// Server ids must lie in `0..<pendingBase` (the relay assigns increasing
/// non-negative 64-bit ids); pending positions are `pendingBase + createdAt`.
public enum MessagePosition {
    public static let pendingBase: Int64 = 1 << 62

    public static func acknowledged(serverId: Int64) throws(StoreError) -> Int64 {
        guard serverId >= 0, serverId < pendingBase else {
            throw .invalidArgument("server message id \(serverId) outside 0..<2^62")
        }
        return serverId
    }

    /// A local notice written now, when the highest acknowledged position
    /// of its conversation is `shown`: right after everything the
    /// conversation holds, and before what the relay numbers later (its ids
    /// only grow, docs/RELAY-API.md), whatever our clock says.
    public static func local(after shown: Int64?) -> Int64 {
        shown.map { min($0 + 1, pendingBase - 1) } ?? 0
    }

    public static func pending(createdAt: Milliseconds) -> Int64 {
        pendingBase + max(0, min(createdAt, pendingBase - 1))
    }

    static func of(serverId: Int64?, createdAt: Milliseconds) throws(StoreError) -> Int64 {
        if let serverId { return try acknowledged(serverId: serverId) }
        return pending(createdAt: createdAt)
    }
}
