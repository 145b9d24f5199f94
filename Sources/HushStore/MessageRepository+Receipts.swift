import HushDatabase

extension MessageRepository {
    /// Incoming messages of a conversation not yet read, oldest first: all,
    /// or those up to message `upTo` in the conversation's order.
    public func unreadIncoming(conversationId: Int64, upTo messageId: Int64? = nil) throws -> [StoredMessage] {
        guard let messageId else {
            return try database.query("""
                SELECT \(StoredMessage.columns) FROM messages
                WHERE conversation_id = ? AND direction = 'in' AND read_at IS NULL
                ORDER BY position, id
                """, [conversationId]) { try StoredMessage(row: $0) }
        }
        let anchor = try position(of: messageId, in: conversationId)
        return try database.query("""
            SELECT \(StoredMessage.columns) FROM messages
            WHERE conversation_id = ? AND direction = 'in' AND read_at IS NULL
              AND position <= ? AND (position < ? OR id <= ?)
            ORDER BY position, id
            """, [conversationId, anchor, anchor, messageId]) { try StoredMessage(row: $0) }
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
