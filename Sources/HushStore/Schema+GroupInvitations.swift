import HushDatabase

extension Schema {
    /// Version 18: group invitations from someone whose message request waits
    /// (docs/PROTOCOL.md §18.2). The admin's state is kept, not applied, until
    /// the user accepts the request (then it is applied as if it arrived
    /// then) or blocks or removes the sender (then it goes with them). The
    /// state holds the group's secret: the database is encrypted.
    static func addGroupInvitations(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE group_invitations(
                group_id BLOB PRIMARY KEY,
                contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                state BLOB NOT NULL,
                received_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX group_invitations_by_contact ON group_invitations(contact_id);
            """)
    }
}
