import HushDatabase

extension MessageRepository {
    /// Applies the peer's delivery or read receipt to our outgoing message
    /// with `clientMessageId` in `conversationId` (the peer's conversation). Status only moves forward (a late "delivered"
    /// does not undo "read"). Returns whether the message changed.
    @discardableResult
    public func advanceOutgoingStatus(clientMessageId: String, to status: MessageStatus, at time: Milliseconds,
                                      conversationId: Int64) throws -> Bool {
        switch status {
        case .delivered:
            try database.execute("""
                UPDATE messages SET status = 'delivered', delivered_at = coalesce(delivered_at, ?)
                WHERE client_message_id = ? AND conversation_id = ? AND direction = 'out' AND status IN ('pending', 'sent')
                """, [time, clientMessageId, conversationId])
        case .read:
            try database.execute("""
                UPDATE messages SET status = 'read', read_at = coalesce(read_at, ?), delivered_at = coalesce(delivered_at, ?)
                WHERE client_message_id = ? AND conversation_id = ? AND direction = 'out' AND status IN ('pending', 'sent', 'delivered')
                """, [time, time, clientMessageId, conversationId])
        default:
            throw StoreError.invalidArgument("a receipt is delivered or read")
        }
        return database.changes > 0
    }

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
