import HushDatabase

extension Schema {
    /// Version 7: which of our delivery credentials each contact has been
    /// given. Both sides of a session must hold the other's credential (else
    /// every deposit is a rate-limited first contact); the pipeline hands ours
    /// over with the first thing it seals to a contact, and again whenever
    /// ours changes or the contact starts a new session.
    static func addCredentialHandOver(_ db: Database) throws {
        try db.execute("ALTER TABLE contacts ADD COLUMN credential_sent BLOB")
    }
}
