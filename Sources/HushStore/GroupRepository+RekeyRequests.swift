import HushDatabase

/// The rekey requests an admin honoured (store version 34), by group and
/// member: the counter of the member's device list that revoked a device.
extension GroupRepository {
    public func rekeyHonoured(groupRow: Int64, memberKey: [UInt8]) throws -> Int64? {
        try database.queryFirst("SELECT list_counter FROM group_rekeys_honoured WHERE group_row = ? AND member_key = ?",
                                [groupRow, memberKey]) { try $0.get(0) }
    }

    public func setRekeyHonoured(_ counter: Int64, groupRow: Int64, memberKey: [UInt8]) throws {
        try database.execute("INSERT OR REPLACE INTO group_rekeys_honoured(group_row, member_key, list_counter) VALUES (?, ?, ?)",
                             [groupRow, memberKey, counter])
    }
}
