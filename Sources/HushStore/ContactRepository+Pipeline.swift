import Foundation
import HushDatabase

/// Look-ups and updates the messaging pipeline needs beyond the basics.
extension ContactRepository {
    /// The contact whose current identity key is `identityKey`.
    public func contact(identityKey: [UInt8]) throws -> Contact? {
        try database.queryFirst("SELECT \(Self.columns) FROM contacts WHERE identity_key = ?", [identityKey], decode)
    }

    /// The contact a conversation is with.
    public func contact(conversationId: Int64) throws -> Contact? {
        try database.queryFirst("""
            SELECT \(Self.columns.split(separator: ",").map { "c." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))
            FROM contacts c JOIN conversations v ON v.contact_id = c.id WHERE v.id = ?
            """, [conversationId], decode)
    }

    /// How many message requests wait (strangers who wrote first, not accepted or blocked).
    public func pendingRequestCount() throws -> Int {
        Int(try database.queryFirst("SELECT count(*) FROM contacts WHERE standing = 'requested'", []) { try $0.get(0, as: Int64.self) } ?? 0)
    }

    /// The message request that has waited longest since its last message
    /// arrived here (one with no message first). By arrival order (the row
    /// ids this store gave), never by a time the stranger wrote into the message.
    public func leastRecentlyActiveRequest() throws -> Int64? {
        try database.queryFirst("""
            SELECT c.id FROM contacts c LEFT JOIN conversations v ON v.contact_id = c.id
            WHERE c.standing = 'requested'
            ORDER BY coalesce((SELECT max(m.id) FROM messages m WHERE m.conversation_id = v.id), 0), c.id LIMIT 1
            """, []) { try $0.get(0, as: Int64.self) }
    }

    /// Removes the contact with its conversation, messages, session and keys.
    public func remove(contactId: Int64) throws {
        try database.execute("DELETE FROM contacts WHERE id = ?", [contactId])
        if database.changes == 0 { throw StoreError.notFound("contact \(contactId)") }
    }

    public func setAddress(_ address: String, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET address = ? WHERE id = ?", [address, contactId])
    }

    /// The token the contact gave us for depositing into its mailbox.
    public func deliveryCredential(contactId: Int64) throws -> [UInt8]? {
        try database.queryFirst("SELECT delivery_credential FROM contacts WHERE id = ?", [contactId]) {
            try $0.get(0, as: [UInt8]?.self)
        } ?? nil
    }

    public func setDeliveryCredential(_ token: [UInt8]?, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET delivery_credential = ? WHERE id = ?", [token, contactId])
    }

    /// Our delivery credential as last handed to the contact (nil: never, or
    /// to be handed over again).
    public func credentialSent(contactId: Int64) throws -> [UInt8]? {
        try database.queryFirst("SELECT credential_sent FROM contacts WHERE id = ?", [contactId]) {
            try $0.get(0, as: [UInt8]?.self)
        } ?? nil
    }

    public func setCredentialSent(_ token: [UInt8]?, contactId: Int64) throws {
        try database.execute("UPDATE contacts SET credential_sent = ? WHERE id = ?", [token, contactId])
    }
}
