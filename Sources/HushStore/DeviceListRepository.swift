import HushDatabase

/// The account's signed device lists (see `Schema.addDeviceLists`), kept as
/// signed; checking them is the protocol's (`DeviceListVerifier`).
public struct DeviceListRepository {
    let database: Database

    /// Keeps `list`, whose counter is `counter`. The same list again is a
    /// no-op; another list under a counter already kept is refused (two
    /// devices that signed the same counter must merge, §20.2).
    public func keep(_ list: [UInt8], counter: UInt64, at time: Milliseconds) throws {
        guard counter > 0, counter <= UInt64(Int64.max) else { throw StoreError.invalidArgument("device list counter \(counter)") }
        if let existing = try self.list(counter: counter) {
            guard existing == list else { throw StoreError.invalidArgument("another device list with counter \(counter) is kept already") }
            return
        }
        try database.execute("INSERT INTO device_lists(counter, list, stored_at) VALUES (?, ?, ?)", [Int64(counter), list, time])
    }

    /// The list kept under `counter`, if any.
    public func list(counter: UInt64) throws -> [UInt8]? {
        try database.queryFirst("SELECT list FROM device_lists WHERE counter = ?", [Int64(counter)]) { try $0.get(0, as: [UInt8].self) }
    }

    /// The highest counter kept: the account's current list's (nil: no list,
    /// an account that never linked a device).
    public func latestCounter() throws -> UInt64? {
        try database.queryFirst("SELECT max(counter) FROM device_lists") { try $0.get(0, as: Int64?.self).map(UInt64.init) } ?? nil
    }

    /// Every list kept with a counter above `counter`, oldest first.
    public func lists(after counter: UInt64) throws -> [(counter: UInt64, list: [UInt8])] {
        guard counter < UInt64(Int64.max) else { return [] }
        return try database.query("SELECT counter, list FROM device_lists WHERE counter > ? ORDER BY counter", [Int64(counter)]) {
            (UInt64(try $0.get(0, as: Int64.self)), try $0.get(1, as: [UInt8].self))
        }
    }

    /// The list with the highest counter: the account's current one.
    public func latest() throws -> [UInt8]? {
        try database.queryFirst("SELECT list FROM device_lists ORDER BY counter DESC LIMIT 1") { try $0.get(0, as: [UInt8].self) }
    }
}
