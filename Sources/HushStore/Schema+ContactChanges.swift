import HushDatabase

extension Schema {
    /// Version 33: contacts on every device of the account
    /// (docs/PROTOCOL.md §20.16).
    ///
    /// When the user last changed each field of a contact (its standing,
    /// its verification, its name), or when a newer change another device
    /// made was applied here: a record from another device changes a field
    /// only when it is newer, so devices that changed one contact while
    /// apart converge, field by field. 0: never decided by the user (a
    /// stranger's request, a member a group introduced), so any decision
    /// from another device is newer. Contacts that existed before take
    /// their creation time: a device linked from this one holds the same.
    ///
    /// `removed_contacts` remembers a removed contact's key and when it was
    /// removed, so an older record of it (from a third device, or handed
    /// over) does not add it back; `sent` is set once the removal was
    /// sealed to our other devices; `replaced` marks the old key of a
    /// contact whose changed key the user accepted here: kept here only,
    /// and no record adds it back.
    ///
    /// `own_device_sessions.contacts_handed_over`: whether our contacts
    /// went to that device on this session (every session that existed
    /// before this version gets them once).
    static func addContactChangeTimes(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE contacts ADD COLUMN standing_changed_at INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE contacts ADD COLUMN verification_changed_at INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE contacts ADD COLUMN name_changed_at INTEGER NOT NULL DEFAULT 0;
            UPDATE contacts SET standing_changed_at = created_at, verification_changed_at = created_at, name_changed_at = created_at
                WHERE standing != 'requested';
            CREATE TABLE removed_contacts(
                identity_key BLOB PRIMARY KEY,
                changed_at INTEGER NOT NULL,
                sent INTEGER NOT NULL DEFAULT 0,
                replaced INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            ALTER TABLE own_device_sessions ADD COLUMN contacts_handed_over INTEGER NOT NULL DEFAULT 0;
            """)
    }
}
