import HushDatabase

extension Schema {
    /// Version 10: message requests. A stranger who writes first becomes a
    /// `requested` contact: nothing is sent back (no receipt, no credential)
    /// until the user accepts; `blocked` contacts' envelopes are dropped
    /// unread. Contacts that existed before are `accepted`.
    static func addContactStanding(_ db: Database) throws {
        try db.execute("""
            ALTER TABLE contacts ADD COLUMN standing TEXT NOT NULL DEFAULT 'accepted'
                CHECK (standing IN ('accepted', 'requested', 'blocked'));
            """)
    }
}
