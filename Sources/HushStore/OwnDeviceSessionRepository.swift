import HushCrypto
import HushDatabase

/// Sessions with this account's other devices (see
/// `Schema.addOwnDeviceSessions`), by the key each has at the relay, opaque
/// to the store as `SessionRepository`'s are. A session's row id names its
/// skipped keys (`MessageStore.ownDeviceSkippedKeys`), so it is kept when
/// the state changes. Secret bytes cross in `SecureBytes`; the copy bound
/// into SQLite is wiped after the call.
public struct OwnDeviceSessionRepository {
    let database: Database

    /// Stores the session with `deviceKey`; returns its row id.
    @discardableResult
    public func save(state: SecureBytes, deviceKey: [UInt8], at time: Milliseconds) throws -> Int64 {
        var bytes = state.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        if let id = try id(deviceKey: deviceKey) {
            try database.execute("UPDATE own_device_sessions SET state = ?, updated_at = ? WHERE id = ?", [bytes, time, id])
            return id
        }
        try database.execute("INSERT INTO own_device_sessions(device_key, state, updated_at) VALUES (?, ?, ?)", [deviceKey, bytes, time])
        return database.lastInsertRowID
    }

    /// The session with `deviceKey` (an empty state: ended), if there is a row.
    public func load(deviceKey: [UInt8]) throws -> SecureBytes? {
        try database.queryFirst("SELECT state FROM own_device_sessions WHERE device_key = ?", [deviceKey]) { row in
            var bytes = try row.get(0, as: [UInt8].self)
            defer { ConstantTime.wipe(&bytes) }
            return SecureBytes(copying: bytes)
        }
    }

    /// The row id of the session with `deviceKey`.
    public func id(deviceKey: [UInt8]) throws -> Int64? {
        try database.queryFirst("SELECT id FROM own_device_sessions WHERE device_key = ?", [deviceKey]) { try $0.get(0, as: Int64.self) }
    }

    /// The counter of our device list last sealed to `deviceKey`.
    public func listSent(deviceKey: [UInt8]) throws -> Int64? {
        try database.queryFirst("SELECT list_sent FROM own_device_sessions WHERE device_key = ?", [deviceKey]) {
            try $0.get(0, as: Int64?.self)
        } ?? nil
    }

    public func setListSent(_ counter: Int64, deviceKey: [UInt8]) throws {
        try database.execute("UPDATE own_device_sessions SET list_sent = ? WHERE device_key = ?", [counter, deviceKey])
    }

    /// The list counter of the recovery key last sealed to `deviceKey`
    /// (docs/PROTOCOL.md §20.14); 0 when none was.
    public func recoveryKeySent(deviceKey: [UInt8]) throws -> UInt64 {
        try database.queryFirst("SELECT recovery_key_sent FROM own_device_sessions WHERE device_key = ?", [deviceKey]) {
            UInt64(clamping: try $0.get(0, as: Int64.self))
        } ?? 0
    }

    public func setRecoveryKeySent(_ counter: UInt64, deviceKey: [UInt8]) throws {
        try database.execute("UPDATE own_device_sessions SET recovery_key_sent = ? WHERE device_key = ?",
                             [Int64(clamping: counter), deviceKey])
    }

    /// Whether our contacts went to `deviceKey` on the session held with it
    /// (docs/PROTOCOL.md §20.16).
    public func contactsHandedOver(deviceKey: [UInt8]) throws -> Bool {
        try database.queryFirst("SELECT contacts_handed_over FROM own_device_sessions WHERE device_key = ?", [deviceKey]) {
            try $0.get(0, as: Int64.self) != 0
        } ?? false
    }

    public func setContactsHandedOver(_ done: Bool, deviceKey: [UInt8]) throws {
        try database.execute("UPDATE own_device_sessions SET contacts_handed_over = ? WHERE device_key = ?", [done ? 1 : 0, deviceKey])
    }

    /// Ends the session with a device (revoked, §20.14): its state and
    /// skipped keys are wiped, and the row stays, so what the device still
    /// sends is known as ours and refused as a revoked device's.
    public func end(deviceKey: [UInt8]) throws {
        guard let id = try id(deviceKey: deviceKey) else { return }
        try database.execute("UPDATE own_device_sessions SET state = x'' WHERE id = ?", [id])
        try database.execute("DELETE FROM own_device_skipped_keys WHERE session_id = ?", [id])
    }
}
