import HushCrypto
import HushDatabase

/// Ratchet session state per contact, opaque to the store: the protocol
/// layer serialises it. Secret bytes cross in `SecureBytes`; the copy bound
/// into SQLite is wiped after the call.
public struct SessionRepository {
    let database: Database

    public func save(state: SecureBytes, contactId: Int64, at time: Milliseconds) throws {
        var bytes = state.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        try database.execute("""
            INSERT OR REPLACE INTO ratchet_sessions(contact_id, state, updated_at) VALUES (?, ?, ?)
            """, [contactId, bytes, time])
    }

    public func load(contactId: Int64) throws -> SecureBytes? {
        try database.queryFirst("SELECT state FROM ratchet_sessions WHERE contact_id = ?", [contactId]) { row in
            var bytes = try row.get(0, as: [UInt8].self)
            defer { ConstantTime.wipe(&bytes) }
            return SecureBytes(copying: bytes)
        }
    }

    public func delete(contactId: Int64) throws {
        try database.execute("DELETE FROM ratchet_sessions WHERE contact_id = ?", [contactId])
    }
}
