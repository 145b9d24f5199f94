import HushDatabase

/// Envelopes that could not be decrypted, kept (still sealed) for
/// inspection instead of being dropped or retried forever.
public struct QuarantineRepository {
    let database: Database

    public struct Entry: Sendable, Equatable {
        public let id: Int64
        public let serverId: Int64?
        public let envelope: [UInt8]
        public let reason: String
        public let receivedAt: Milliseconds
    }

    public func add(serverId: Int64?, envelope: [UInt8], reason: String, at time: Milliseconds) throws {
        try database.execute("INSERT INTO quarantined_envelopes(server_id, envelope, reason, received_at) VALUES (?, ?, ?, ?)",
                             [serverId, envelope, reason, time])
    }

    /// Sets aside an envelope that failed for a cause on our side: it is not
    /// acknowledged, and `isDeferred` makes the next sync try it again.
    /// One row per relay id, however often it is tried.
    public func deferEnvelope(serverId: Int64, envelope: [UInt8], reason: String, at time: Milliseconds) throws {
        try database.execute("DELETE FROM quarantined_envelopes WHERE server_id = ? AND deferred = 1", [serverId])
        try database.execute("""
            INSERT INTO quarantined_envelopes(server_id, envelope, reason, received_at, deferred) VALUES (?, ?, ?, ?, 1)
            """, [serverId, envelope, reason, time])
    }

    public func isDeferred(serverId: Int64) throws -> Bool {
        try database.queryFirst("SELECT 1 FROM quarantined_envelopes WHERE server_id = ? AND deferred = 1", [serverId]) { _ in true } ?? false
    }

    /// Forgets every deferred envelope: they are another mailbox's (a linked
    /// device's copy of its account's), which this home never reads.
    public func deleteAllDeferred() throws {
        try database.execute("DELETE FROM quarantined_envelopes WHERE deferred = 1")
    }

    /// A deferred envelope opened, or failed for good (then it is set aside anew).
    public func resolveDeferred(serverId: Int64) throws {
        try database.execute("DELETE FROM quarantined_envelopes WHERE server_id = ? AND deferred = 1", [serverId])
    }

    /// Whether these exact bytes were set aside before (a replayed envelope).
    public func contains(envelope: [UInt8]) throws -> Bool {
        try database.queryFirst("SELECT 1 FROM quarantined_envelopes WHERE envelope = ? LIMIT 1", [envelope]) { _ in true } ?? false
    }

    public func all() throws -> [Entry] {
        try database.query("SELECT id, server_id, envelope, reason, received_at FROM quarantined_envelopes ORDER BY id") { row in
            Entry(id: try row.get(0), serverId: try row.get(1), envelope: try row.get(2), reason: try row.get(3), receivedAt: try row.get(4))
        }
    }

    /// The envelopes set aside for good (not the deferred ones), oldest first.
    public func setAsideEnvelopes() throws -> [[UInt8]] {
        try database.query("SELECT envelope FROM quarantined_envelopes WHERE deferred = 0 ORDER BY id") { try $0.get(0, as: [UInt8].self) }
    }

    public func delete(id: Int64) throws {
        try database.execute("DELETE FROM quarantined_envelopes WHERE id = ?", [id])
    }
}
