import HushDatabase

extension MessageRepository {
    /// Incoming messages of a conversation not yet read, oldest first.
    public func unreadIncoming(conversationId: Int64) throws -> [StoredMessage] {
        try database.query("""
            SELECT \(StoredMessage.columns) FROM messages
            WHERE conversation_id = ? AND direction = 'in' AND read_at IS NULL
            ORDER BY position, id
            """, [conversationId]) { try StoredMessage(row: $0) }
    }
}

extension MessageRepository {
    /// Client message ids of every incoming message of a conversation, oldest
    /// first, and whether each was read: what an accepted message request
    /// owes its sender in receipts.
    public func incomingReceiptState(conversationId: Int64) throws -> [(clientMessageId: String, read: Bool)] {
        try database.query("""
            SELECT client_message_id, read_at IS NOT NULL FROM messages
            WHERE conversation_id = ? AND direction = 'in' ORDER BY position, id
            """, [conversationId]) { (try $0.get(0, as: String.self), try $0.get(1, as: Int64.self) != 0) }
    }
}
