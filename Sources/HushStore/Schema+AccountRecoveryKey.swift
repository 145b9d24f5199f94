import HushDatabase

extension Schema {
    /// Version 38: the account's newest recovery key, when a revocation
    /// replaced it (docs/PROTOCOL.md §20.14). The device that revokes keeps
    /// the new key here and hands it to the account's other devices (content
    /// `0x18`); they keep it here too, since a running client holds the
    /// store but cannot rewrite the passphrase-sealed keystore. `list_counter`
    /// is the counter of the device list that revoked the device: of two
    /// keys, the one with the higher counter wins. One row at most. Never in
    /// a backup (the archive is opened by the key itself). Each session with
    /// another device of ours remembers the counter of the key last sealed
    /// to it (`own_device_sessions.recovery_key_sent`), so the key follows
    /// until it was.
    static func addAccountRecoveryKey(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE account_recovery_key(
                id INTEGER PRIMARY KEY CHECK (id = 1),
                list_counter INTEGER NOT NULL CHECK (list_counter > 0),
                key BLOB NOT NULL CHECK (length(key) = 32)
            );
            ALTER TABLE own_device_sessions ADD COLUMN recovery_key_sent INTEGER NOT NULL DEFAULT 0;
            """)
    }
}
