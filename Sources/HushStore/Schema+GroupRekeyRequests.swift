import HushDatabase

extension Schema {
    /// Version 34: rekey requests for small groups (docs/PROTOCOL.md §20.14).
    /// A member that revoked one of its devices asks an admin of each group
    /// it does not administer to write the next state, so the revoked
    /// device's keys open nothing sent there afterwards. An admin honours a
    /// member's request only when the device list it holds of that member
    /// revokes more devices than it did at the last request honoured:
    /// `revoked_devices` is that count (revoked entries stay in every later
    /// list, so a member cannot make the group rekey at will by signing
    /// lists).
    static func addGroupRekeyRequests(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE group_rekeys_honoured(
                group_row INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
                member_key BLOB NOT NULL,
                revoked_devices INTEGER NOT NULL,
                PRIMARY KEY (group_row, member_key)
            ) WITHOUT ROWID;
            """)
    }
}
