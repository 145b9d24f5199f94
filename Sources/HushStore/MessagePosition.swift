/// The on-screen order of a conversation as one sortable integer:
/// acknowledged messages by the relay's server id (a local notice no
/// envelope carried by the id its millisecond would have, `local(at:)`),
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

    /// A local notice at `time`: where the relay's id of that millisecond
    /// would sort (docs/RELAY-API.md: ids are `max(now_ms << 10, previous + 1)`),
    /// so it stands among the messages of that moment.
    public static func local(at time: Milliseconds) -> Int64 {
        max(0, min(time, (pendingBase - 1) >> 10)) << 10
    }

    public static func pending(createdAt: Milliseconds) -> Int64 {
        pendingBase + max(0, min(createdAt, pendingBase - 1))
    }

    static func of(serverId: Int64?, createdAt: Milliseconds) throws(StoreError) -> Int64 {
        if let serverId { return try acknowledged(serverId: serverId) }
        return pending(createdAt: createdAt)
    }
}
