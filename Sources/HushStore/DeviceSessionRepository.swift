import HushCrypto
import HushDatabase

/// Sessions a contact's devices started with us (see
/// `Schema.addContactDeviceLists`), per contact and device key, opaque to
/// the store as `SessionRepository`'s are. Secret bytes cross in
/// `SecureBytes`; the copy bound into SQLite is wiped after the call.
public struct DeviceSessionRepository {
    let database: Database

    public func save(state: SecureBytes, contactId: Int64, deviceKey: [UInt8], at time: Milliseconds) throws {
        var bytes = state.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        try database.execute("""
            INSERT OR REPLACE INTO device_sessions(contact_id, device_key, state, updated_at) VALUES (?, ?, ?, ?)
            """, [contactId, deviceKey, bytes, time])
    }

    public func load(contactId: Int64, deviceKey: [UInt8]) throws -> SecureBytes? {
        try database.queryFirst("SELECT state FROM device_sessions WHERE contact_id = ? AND device_key = ?", [contactId, deviceKey]) { row in
            var bytes = try row.get(0, as: [UInt8].self)
            defer { ConstantTime.wipe(&bytes) }
            return SecureBytes(copying: bytes)
        }
    }

    /// The contact one of whose devices has the key `deviceKey` (a device
    /// key belongs to one account), if we hold a session with it.
    public func contactId(deviceKey: [UInt8]) throws -> Int64? {
        try database.queryFirst("SELECT contact_id FROM device_sessions WHERE device_key = ? LIMIT 1", [deviceKey]) {
            try $0.get(0, as: Int64.self)
        }
    }

    /// Ends the session with a device (revoked in the contact's list,
    /// §20.14): its state is wiped (an empty state is no session), and the
    /// row stays, so what the device still sends is known as its account's
    /// and refused as a revoked device's rather than taken for a stranger's.
    public func end(contactId: Int64, deviceKey: [UInt8]) throws {
        try database.execute("UPDATE device_sessions SET state = x'' WHERE contact_id = ? AND device_key = ?", [contactId, deviceKey])
    }
}
