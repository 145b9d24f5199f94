import HushDatabase

/// Every write of `messages.status` after insertion lives in this file. The
/// outgoing moves are guarded by `OutgoingStatusMachine` inside the UPDATE
/// itself, so a move the machine refuses changes nothing, whatever the caller
/// last read. Each call is one or two statements in the caller's transaction
/// (or its own), never a savepoint.
extension MessageRepository {
    /// Applies the peer's delivery or read receipt to our outgoing message
    /// with `clientMessageId` in `conversationId` (the peer's conversation:
    /// a contact can confirm only what was sent to it). Returns whether the
    /// message changed.
    @discardableResult
    public func advanceOutgoingStatus(clientMessageId: String, to status: MessageStatus, at time: Milliseconds,
                                      conversationId: Int64) throws -> Bool {
        let sources = OutgoingStatusMachine.sqlSources(of: status)
        switch status {
        case .delivered:
            try database.execute("""
                UPDATE messages SET status = 'delivered', delivered_at = coalesce(delivered_at, ?)
                WHERE client_message_id = ? AND conversation_id = ? AND direction = 'out' AND status IN (\(sources))
                """, [time, clientMessageId, conversationId])
        case .read:
            try database.execute("""
                UPDATE messages SET status = 'read', read_at = coalesce(read_at, ?), delivered_at = coalesce(delivered_at, ?)
                WHERE client_message_id = ? AND conversation_id = ? AND direction = 'out' AND status IN (\(sources))
                """, [time, time, clientMessageId, conversationId])
        default:
            throw StoreError.invalidArgument("a receipt is delivered or read")
        }
        return database.changes > 0
    }

    /// The relay accepted (201) an envelope carrying outgoing message
    /// `messageId`: the message gets the relay's id and time and moves into
    /// acknowledged order, and becomes `sent` where the machine allows it. A
    /// message resent after a decryption error keeps the id, time and place
    /// its first acceptance gave it (and a status a receipt already advanced).
    public func recordAccepted(messageId: Int64, serverId: Int64, relayTimestamp: Milliseconds) throws {
        let position = try MessagePosition.acknowledged(serverId: serverId)
        try database.withinTransaction { db in
            let conversationId = try db.queryFirst("SELECT conversation_id FROM messages WHERE id = ?", [messageId]) {
                try $0.get(0, as: Int64.self)
            }
            guard let conversationId else { return }
            try db.execute("""
                UPDATE messages SET server_id = coalesce(server_id, ?), relay_timestamp = coalesce(relay_timestamp, ?),
                    position = CASE WHEN server_id IS NULL THEN ? ELSE position END,
                    status = CASE WHEN status IN (\(OutgoingStatusMachine.sqlSources(of: .sent))) THEN 'sent' ELSE status END
                WHERE id = ? AND direction = 'out'
                """, [serverId, relayTimestamp, position, messageId])
            try refreshConversationSummary(conversationId)
        }
    }

    /// Moves outgoing message `messageId` to `failed` (the outbox gave up)
    /// or back to `pending` (the user retries). Returns whether it moved.
    @discardableResult
    public func moveOutgoing(messageId: Int64, to status: MessageStatus) throws -> Bool {
        guard status == .failed || status == .pending else {
            throw StoreError.invalidArgument("the outbox moves a message to failed or pending only")
        }
        try database.execute("""
            UPDATE messages SET status = ? WHERE id = ? AND direction = 'out' AND status IN (\(OutgoingStatusMachine.sqlSources(of: status)))
            """, [status.rawValue, messageId])
        return database.changes > 0
    }

    /// How many outgoing messages written at or after `time` the relay
    /// accepted and no receipt confirmed yet: what a home replaced by another
    /// home of its key (docs/PROTOCOL.md §19.4) may have sent in vain.
    public func unconfirmedOutgoingCount(since time: Milliseconds) throws -> Int {
        try database.queryFirst("SELECT count(*) FROM messages WHERE direction = 'out' AND status = 'sent' AND created_at >= ?",
                                [time]) { try $0.get(0, as: Int.self) } ?? 0
    }

    /// Marks every incoming message up to and including `messageId` (in
    /// display order) as read at `time`. Returns how many changed.
    @discardableResult
    public func markRead(upTo messageId: Int64, in conversationId: Int64, at time: Milliseconds) throws -> Int {
        try database.withinTransaction { db in
            let anchor = try position(of: messageId, in: conversationId)
            // A disappearing message's timer starts when it is read: in the
            // same statement, which finds the messages through the unread
            // index (a second statement after it could not: they are read by
            // then, and would be looked for among every message of the conversation).
            try db.execute("""
                UPDATE messages SET read_at = ?1, status = 'read',
                    expires_at = CASE WHEN expires_after IS NOT NULL AND expires_at IS NULL AND deleted_at IS NULL
                                      THEN ?1 + expires_after * 1000 ELSE expires_at END
                WHERE conversation_id = ?2 AND direction = 'in' AND read_at IS NULL
                  AND position <= ?3 AND (position < ?3 OR id <= ?4)
                """, [time, conversationId, anchor, messageId])
            let changed = db.changes
            try refreshConversationSummary(conversationId)
            return changed
        }
    }
}
