import HushDatabase

extension Schema {
    /// Version 32: sessions between this account's own devices
    /// (docs/PROTOCOL.md §20.10, §20.11), which carry sent transcripts and
    /// the account's device list from one device to the others.
    ///
    /// The own account is no contact, so these are kept apart from
    /// `device_sessions`: one row per device of ours, by the key that device
    /// has at the relay (the account key for the first device, §20.13).
    /// `list_sent` is the counter of our device list as last sealed to that
    /// device. Their skipped message keys are kept per session, as a
    /// contact's are per contact. Both are left out of backups and links,
    /// like every session.
    static func addOwnDeviceSessions(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE own_device_sessions(
                id INTEGER PRIMARY KEY,
                device_key BLOB NOT NULL UNIQUE,
                state BLOB NOT NULL,
                list_sent INTEGER,
                updated_at INTEGER NOT NULL
            );
            CREATE TABLE own_device_skipped_keys(
                id INTEGER PRIMARY KEY,
                session_id INTEGER NOT NULL REFERENCES own_device_sessions(id) ON DELETE CASCADE,
                ratchet_key BLOB NOT NULL,
                counter INTEGER NOT NULL,
                message_key BLOB NOT NULL,
                created_at INTEGER NOT NULL,
                UNIQUE (session_id, ratchet_key, counter)
            );
            """)
    }
}
