import HushDatabase

extension Schema {
    /// Version 29: the account's signed device lists (docs/PROTOCOL.md
    /// §20.2), every one it signed or accepted, by counter. The account
    /// keeps them all because a contact that missed some catches up by
    /// applying the ones in between, in order (§20.3). The bytes are the
    /// list as signed; the device's own seed is a secret and lives in the
    /// keystore, never here.
    static func addDeviceLists(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE device_lists(
                counter INTEGER PRIMARY KEY,
                list BLOB NOT NULL,
                stored_at INTEGER NOT NULL
            );
            """)
    }
}
