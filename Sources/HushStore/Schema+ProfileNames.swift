import HushDatabase

extension Schema {
    /// Version 19: profile names. `profile_name` is the display name a
    /// contact chose and sent us (docs/PROTOCOL.md §10.4), shown beside the
    /// name we gave them, never instead of it; `profile_sent` is our own
    /// display name as last sealed to them, so a change is sent once to each.
    static func addProfileNames(_ db: Database) throws {
        try db.execute("ALTER TABLE contacts ADD COLUMN profile_name TEXT")
        try db.execute("ALTER TABLE contacts ADD COLUMN profile_sent TEXT")
    }
}
