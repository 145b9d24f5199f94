import HushDatabase

extension Schema {
    /// Version 5: the delivery credential each contact gave us (the token the
    /// relay asks for before it accepts our deposits into their mailbox).
    static func addDeliveryCredentials(_ db: Database) throws {
        try db.execute("ALTER TABLE contacts ADD COLUMN delivery_credential BLOB")
    }
}
