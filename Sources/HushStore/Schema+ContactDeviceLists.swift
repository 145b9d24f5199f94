import HushDatabase

extension Schema {
    /// Version 31: sessions with devices (docs/PROTOCOL.md §20.10) and the
    /// device list held of each contact.
    ///
    /// `ratchet_sessions` stays what it was: one session per contact,
    /// between this home's key at the relay (the account key, or this
    /// device's key on a linked device) and the contact's account key.
    /// `device_sessions` holds the sessions a contact's devices started with
    /// us (§20.10: a device prekey message names the device and its
    /// account), one per contact and device key, so what a device sends is
    /// filed under its account. Like `ratchet_sessions` it is left out of
    /// backups and links. Skipped message keys stay per contact: a header
    /// key opens only its own session's headers, so sharing the set between
    /// a contact's sessions lets none read another's messages; its bounds
    /// then hold per account rather than per device.
    ///
    /// The device list held of each contact (docs/PROTOCOL.md
    /// §20.3: a verifier holds one per account, the last it accepted), as
    /// signed. A backup carries it (§20.17), so a restored home does not
    /// accept an older list, or one a revoked device signed, as a first one.
    /// `device_list_sent` is the counter of our own list as last sealed to
    /// the contact (§20.11), so each list goes once to each, as our profile
    /// name does; `device_list_stale` marks a contact whose directory is to
    /// be read (a list arrived that the held one cannot vouch for).
    static func addContactDeviceLists(_ db: Database) throws {
        try db.execute("ALTER TABLE contacts ADD COLUMN device_list_sent INTEGER")
        try db.execute("ALTER TABLE contacts ADD COLUMN device_list_stale INTEGER NOT NULL DEFAULT 0")
        try db.execute("""
            CREATE TABLE device_sessions(
                contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
                device_key BLOB NOT NULL,
                state BLOB NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (contact_id, device_key)
            ) WITHOUT ROWID;
            CREATE INDEX device_sessions_by_key ON device_sessions(device_key);
            CREATE TABLE contact_device_lists(
                contact_id INTEGER PRIMARY KEY REFERENCES contacts(id) ON DELETE CASCADE,
                counter INTEGER NOT NULL,
                list BLOB NOT NULL,
                accepted_at INTEGER NOT NULL
            );
            """)
    }
}
