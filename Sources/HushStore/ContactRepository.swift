import HushDatabase

/// Contacts and the state of their identity keys.
public struct ContactRepository {
    let database: Database

    static let columns = "id, name, address, identity_key, verification, pending_identity_key, created_at, standing, profile_name"

    func decode(_ row: Row) throws -> Contact {
        Contact(id: try row.get(0), name: try row.get(1), address: try row.get(2), identityKey: try row.get(3),
                verification: VerificationState(rawValue: try row.get(4)) ?? .unverified,
                pendingIdentityKey: try row.get(5), createdAt: try row.get(6),
                standing: ContactStanding(rawValue: try row.get(7)) ?? .blocked, profileName: try row.get(8))
    }

    /// Adds a contact; the name must be unique (a constraint error otherwise).
    /// `decided`: the user chose to add it (its fields changed now, after
    /// any removal of it remembered); otherwise (a stranger's request, a
    /// member a group introduced) no change of it is known, and any record
    /// from another device of the account is newer (docs/PROTOCOL.md §20.16).
    public func add(name: String, address: String, identityKey: [UInt8], standing: ContactStanding = .accepted,
                    at time: Milliseconds, decided: Bool = true) throws -> Contact {
        let changed = decided ? max(time, ContactChangeTimes.after(try removedAt(identityKey: identityKey) ?? 0)) : 0
        try database.execute("""
            INSERT INTO contacts(name, address, identity_key, created_at, standing, standing_changed_at, verification_changed_at, name_changed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [name, address, identityKey, time, standing.rawValue, changed, changed, changed])
        // Added again after a removal: the removal no longer stands (§20.16).
        try database.execute("DELETE FROM removed_contacts WHERE identity_key = ? AND replaced = 0", [identityKey])
        return Contact(id: database.lastInsertRowID, name: name, address: address, identityKey: identityKey,
                       verification: .unverified, pendingIdentityKey: nil, createdAt: time, standing: standing)
    }

    public func contact(named name: String) throws -> Contact? {
        try database.queryFirst("SELECT \(Self.columns) FROM contacts WHERE name = ?", [name], decode)
    }

    public func contact(id: Int64) throws -> Contact? {
        try database.queryFirst("SELECT \(Self.columns) FROM contacts WHERE id = ?", [id], decode)
    }

    public func all() throws -> [Contact] {
        try database.query("SELECT \(Self.columns) FROM contacts ORDER BY name", [], decode)
    }

    /// Records the display name the contact sent us.
    public func setProfileName(_ name: String, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET profile_name = ? WHERE id = ?", [name, contactId])
    }

    /// Our display name as last sealed to the contact (nil: never sent).
    public func profileSent(contactId: Int64) throws -> String? {
        try database.queryFirst("SELECT profile_sent FROM contacts WHERE id = ?", [contactId]) { try $0.get(0, as: String?.self) } ?? nil
    }

    /// Records our display name as sealed to the contact (nil: send it again).
    public func setProfileSent(_ name: String?, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET profile_sent = ? WHERE id = ?", [name, contactId])
    }

    /// The counter of our device list as last sealed to the contact (nil: never sent).
    public func deviceListSent(contactId: Int64) throws -> UInt64? {
        try database.queryFirst("SELECT device_list_sent FROM contacts WHERE id = ?", [contactId]) {
            try $0.get(0, as: Int64?.self).map(UInt64.init)
        } ?? nil
    }

    /// Records our device list's counter as sealed to the contact (nil: send it again).
    public func setDeviceListSent(_ counter: UInt64?, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET device_list_sent = ? WHERE id = ?", [counter.map(Int64.init), contactId])
    }

    /// Marks (or clears) the contact as one whose device directory is to be read.
    public func setDeviceListStale(_ stale: Bool, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET device_list_stale = ? WHERE id = ?", [stale ? 1 : 0, contactId])
    }

    /// The contacts marked by `setDeviceListStale`.
    public func withStaleDeviceList() throws -> [Contact] {
        try database.query("SELECT \(Self.columns) FROM contacts WHERE device_list_stale = 1 ORDER BY id", [], decode)
    }

    public func setVerification(_ state: VerificationState, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET verification = ? WHERE id = ?", [state.rawValue, contactId])
    }

    /// Records a new identity key seen for the contact: it waits as pending
    /// and the contact becomes `changed` until the user accepts it.
    public func recordChangedIdentityKey(_ key: [UInt8], contactId: Int64) throws {
        try database.execute("UPDATE contacts SET pending_identity_key = ?, verification = 'changed' WHERE id = ?", [key, contactId])
    }

    /// Forgets the pending identity key: the contact keeps its key, unverified
    /// (whether it was verified before the change is not kept).
    public func discardPendingIdentityKey(contactId: Int64) throws {
        try database.execute("""
            UPDATE contacts SET pending_identity_key = NULL, verification = 'unverified'
            WHERE id = ? AND pending_identity_key IS NOT NULL
            """, [contactId])
    }

    /// Accepts the pending identity key: it becomes the contact's key,
    /// unverified. The name and the device list the old key claimed go
    /// with it, and ours are sent again to the new one.
    public func acceptPendingIdentityKey(contactId: Int64) throws {
        try database.execute("""
            UPDATE contacts SET identity_key = pending_identity_key, pending_identity_key = NULL, verification = 'unverified',
                                profile_name = NULL, profile_sent = NULL, device_list_sent = NULL
            WHERE id = ? AND pending_identity_key IS NOT NULL
            """, [contactId])
        if database.changes == 0 { throw StoreError.notFound("a pending identity key for contact \(contactId)") }
        try database.execute("DELETE FROM contact_device_lists WHERE contact_id = ?", [contactId])
        try database.execute("DELETE FROM device_sessions WHERE contact_id = ?", [contactId])
    }

    public func setStanding(_ standing: ContactStanding, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET standing = ? WHERE id = ?", [standing.rawValue, contactId])
        if database.changes == 0 { throw StoreError.notFound("contact \(contactId)") }
    }

    public func rename(contactId: Int64, to name: String) throws {
        try database.execute("UPDATE contacts SET name = ? WHERE id = ?", [name, contactId])
        // The conversation list shows the title: it follows the contact's name.
        try database.execute("UPDATE conversations SET title = ? WHERE contact_id = ?", [name, contactId])
    }
}
