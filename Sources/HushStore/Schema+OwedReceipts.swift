import HushDatabase

extension Schema {
    /// Version 20: delivery receipts owed for stored messages. A received
    /// message records the receipt it is owed in the transaction that stores
    /// it; the end of the receive pass seals one receipt per contact for all
    /// of them and deletes the rows in that transaction, so a crash between
    /// the two loses no receipt (docs/PROTOCOL.md, Appendix C).
    static func addOwedReceipts(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE owed_delivery_receipts(
                id INTEGER PRIMARY KEY,
                contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
                client_message_id TEXT NOT NULL
            );
            CREATE INDEX owed_delivery_receipts_by_contact ON owed_delivery_receipts(contact_id, id);
            """)
    }
}
