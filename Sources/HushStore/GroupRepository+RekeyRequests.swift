import HushDatabase

/// The rekey requests an admin honoured (store version 34), by group and
/// member: how many devices the member's list revoked then.
extension GroupRepository {
    public func rekeyHonoured(groupRow: Int64, memberKey: [UInt8]) throws -> Int64? {
        try database.queryFirst("SELECT revoked_devices FROM group_rekeys_honoured WHERE group_row = ? AND member_key = ?",
                                [groupRow, memberKey]) { try $0.get(0) }
    }

    public func setRekeyHonoured(_ revokedDevices: Int64, groupRow: Int64, memberKey: [UInt8]) throws {
        try database.execute("INSERT OR REPLACE INTO group_rekeys_honoured(group_row, member_key, revoked_devices) VALUES (?, ?, ?)",
                             [groupRow, memberKey, revokedDevices])
    }
}
