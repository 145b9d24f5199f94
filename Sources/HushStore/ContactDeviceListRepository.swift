import HushDatabase

/// The device list held of each contact: the last one accepted (§20.3), as
/// signed. Checking it is the protocol's (`DeviceListVerifier`).
public struct ContactDeviceListRepository {
    let database: Database

    /// Replaces the list held of `contactId` with `list` (already verified
    /// against the one held, so its counter is higher).
    public func keep(_ list: [UInt8], counter: UInt64, contactId: Int64, at time: Milliseconds) throws {
        guard counter > 0, counter <= UInt64(Int64.max) else { throw StoreError.invalidArgument("device list counter \(counter)") }
        try database.execute("""
            INSERT OR REPLACE INTO contact_device_lists(contact_id, counter, list, accepted_at) VALUES (?, ?, ?, ?)
            """, [contactId, Int64(counter), list, time])
    }

    /// A number that changes whenever a list is kept for a contact that had
    /// none or replaces one (counters only grow), so a sync can tell whether a
    /// list came in meanwhile: the count of lists and the sum of their
    /// counters' low 32 bits (whole counters, up to 2^63 − 1 each, would
    /// overflow the sum). A counter that grows by a multiple of 2^32 goes
    /// unseen, which costs only that extra pass.
    public func changeMark() throws -> Int64 {
        try database.queryFirst("SELECT count(*) + coalesce(sum(counter & 4294967295), 0) FROM contact_device_lists") {
            try $0.get(0, as: Int64.self)
        } ?? 0
    }

    /// The list held of `contactId`, if any.
    public func list(contactId: Int64) throws -> [UInt8]? {
        try database.queryFirst("SELECT list FROM contact_device_lists WHERE contact_id = ?", [contactId]) { try $0.get(0, as: [UInt8].self) }
    }
}
