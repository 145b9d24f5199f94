import HushDatabase

extension Schema {
    /// Version 31: the device list held of each contact (docs/PROTOCOL.md
    /// §20.3: a verifier holds one per account, the last it accepted), as
    /// signed. A backup carries it (§20.15), so a restored home does not
    /// accept an older list, or one a revoked device signed, as a first one.
    /// `device_list_sent` is the counter of our own list as last sealed to
    /// the contact (§20.11), so each list goes once to each, as our profile
    /// name does; `device_list_stale` marks a contact whose directory is to
    /// be read (a list arrived that the held one cannot vouch for).
    static func addContactDeviceLists(_ db: Database) throws {
        try db.execute("ALTER TABLE contacts ADD COLUMN device_list_sent INTEGER")
        try db.execute("ALTER TABLE contacts ADD COLUMN device_list_stale INTEGER NOT NULL DEFAULT 0")
        try db.execute("""
            CREATE TABLE contact_device_lists(
                contact_id INTEGER PRIMARY KEY REFERENCES contacts(id) ON DELETE CASCADE,
                counter INTEGER NOT NULL,
                list BLOB NOT NULL,
                accepted_at INTEGER NOT NULL
            );
            """)
    }
}
