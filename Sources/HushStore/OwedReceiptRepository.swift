import HushDatabase

/// Delivery receipts owed to contacts for messages stored but not yet
/// answered: recorded with each message, sealed and forgotten together at
/// the end of a receive pass (schema version 20).
public struct OwedReceiptRepository {
    let database: Database

    /// Records that `contactId` is owed a delivery receipt naming `clientMessageId`.
    public func owe(contactId: Int64, clientMessageId: String) throws {
        try database.execute("INSERT INTO owed_delivery_receipts(contact_id, client_message_id) VALUES (?, ?)",
                             [contactId, clientMessageId])
    }

    /// The contacts owed any receipt.
    public func contacts() throws -> [Int64] {
        try database.query("SELECT DISTINCT contact_id FROM owed_delivery_receipts ORDER BY contact_id") { try $0.get(0, as: Int64.self) }
    }

    /// The client message ids owed to `contactId`, in the order they were stored.
    public func owed(contactId: Int64) throws -> [String] {
        try database.query("SELECT client_message_id FROM owed_delivery_receipts WHERE contact_id = ? ORDER BY id",
                           [contactId]) { try $0.get(0, as: String.self) }
    }

    /// Forgets what `contactId` is owed: sealed, or never to be sent.
    public func forget(contactId: Int64) throws {
        try database.execute("DELETE FROM owed_delivery_receipts WHERE contact_id = ?", [contactId])
    }
}
