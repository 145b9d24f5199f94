import HushDatabase

/// Message requests waiting for the relay. The backoff policy belongs to the
/// messenger; the store keeps the fields it needs (fail count, next attempt,
/// last sent, last error) and answers which requests are due.
public struct OutboxRepository {
    let database: Database

    static let columns = "request_id, message_id, conversation_id, payload, status, fail_count, next_attempt_at, last_sent_at, last_error, created_at"

    private func decode(_ row: Row) throws -> OutboxItem {
        OutboxItem(requestId: try row.get(0), messageId: try row.get(1), conversationId: try row.get(2), payload: try row.get(3),
                   status: OutboxStatus(rawValue: try row.get(4)) ?? .failed, failCount: try row.get(5),
                   nextAttemptAt: try row.get(6), lastSentAt: try row.get(7), lastError: try row.get(8), createdAt: try row.get(9))
    }

    /// Queues a sealed envelope for the message `messageId`.
    public func enqueue(requestId: String, messageId: Int64?, conversationId: Int64, sealedPayload: [UInt8],
                        status: OutboxStatus = .pending, at time: Milliseconds) throws {
        try database.execute("""
            INSERT INTO outbox(request_id, message_id, conversation_id, payload, status, next_attempt_at, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [requestId, messageId, conversationId, sealedPayload, status.rawValue, time, time])
    }

    /// Stores a new outgoing message as pending and queues its sealed
    /// envelope, in one transaction. Returns the message's local id.
    public func enqueueOutgoing(_ message: NewMessage, requestId: String, sealedPayload: [UInt8], at time: Milliseconds) throws -> Int64 {
        try database.transaction { db in
            var pending = message
            pending.serverId = nil
            pending.status = .pending
            let id = try MessageRepository(database: db).insert(pending)
            guard case let .inserted(messageId) = id else {
                throw StoreError.invalidArgument("client message id already used")
            }
            try enqueue(requestId: requestId, messageId: messageId, conversationId: message.conversationId,
                        sealedPayload: sealedPayload, at: time)
            return messageId
        }
    }

    /// Pending requests whose next attempt is due at `time`, oldest first.
    public func due(at time: Milliseconds, limit: Int = 100) throws -> [OutboxItem] {
        try database.query("""
            SELECT \(Self.columns) FROM outbox WHERE status = 'pending' AND next_attempt_at <= ?
            ORDER BY next_attempt_at, created_at LIMIT ?
            """, [time, limit], decode)
    }

    public func item(requestId: String) throws -> OutboxItem? {
        try database.queryFirst("SELECT \(Self.columns) FROM outbox WHERE request_id = ?", [requestId], decode)
    }

    public func items(status: OutboxStatus) throws -> [OutboxItem] {
        try database.query("SELECT \(Self.columns) FROM outbox WHERE status = ? ORDER BY created_at", [status.rawValue], decode)
    }

    /// Notes that a request went out at `time` (before the answer is known).
    public func recordAttempt(requestId: String, at time: Milliseconds) throws {
        try database.execute("UPDATE outbox SET last_sent_at = ? WHERE request_id = ?", [time, requestId])
    }

    /// The relay accepted the request (201): the message gets its server id,
    /// the relay's timestamp and status sent, moving into acknowledged order,
    /// and the request (with its sealed payload) is removed. Returns the
    /// message id, if the request belonged to one.
    @discardableResult
    public func markSent(requestId: String, serverId: Int64, relayTimestamp: Milliseconds) throws -> Int64? {
        let position = try MessagePosition.acknowledged(serverId: serverId)
        return try database.transaction { db in
            guard let item = try item(requestId: requestId) else { throw StoreError.notFound("outbox request") }
            if let messageId = item.messageId {
                // A message resent after a decryption error keeps the id, time and
                // place its first acceptance gave it.
                try db.execute("""
                    UPDATE messages SET server_id = coalesce(server_id, ?), relay_timestamp = coalesce(relay_timestamp, ?),
                        position = CASE WHEN server_id IS NULL THEN ? ELSE position END,
                        status = CASE WHEN status IN ('pending', 'failed') THEN 'sent' ELSE status END
                    WHERE id = ?
                    """, [serverId, relayTimestamp, position, messageId])
                try ConversationRepository(database: db).refreshSummary(item.conversationId)
            }
            try db.execute("DELETE FROM outbox WHERE request_id = ?", [requestId])
            return item.messageId
        }
    }

    /// A failed attempt. With `nextAttemptAt` the request stays pending for
    /// a retry then; without, it is failed for good (and so is its message)
    /// until the user retries or deletes it.
    public func markFailed(requestId: String, error: String, nextAttemptAt: Milliseconds?) throws {
        try database.transaction { db in
            guard let item = try item(requestId: requestId) else { throw StoreError.notFound("outbox request") }
            let status: OutboxStatus = nextAttemptAt == nil ? .failed : .pending
            try db.execute("""
                UPDATE outbox SET fail_count = fail_count + 1, last_error = ?, status = ?, next_attempt_at = ?
                WHERE request_id = ?
                """, [error, status.rawValue, nextAttemptAt ?? item.nextAttemptAt, requestId])
            if status == .failed, let messageId = item.messageId {
                try db.execute("UPDATE messages SET status = 'failed' WHERE id = ? AND status = 'pending'", [messageId])
            }
        }
    }

    /// The user asked to retry a failed request now.
    public func retry(requestId: String, at time: Milliseconds) throws {
        try database.transaction { db in
            guard let item = try item(requestId: requestId) else { throw StoreError.notFound("outbox request") }
            try db.execute("UPDATE outbox SET status = 'pending', next_attempt_at = ? WHERE request_id = ?", [time, requestId])
            if let messageId = item.messageId {
                try db.execute("UPDATE messages SET status = 'pending' WHERE id = ? AND status = 'failed'", [messageId])
            }
        }
    }

    /// The user asked to retry a request whose message was sealed again on
    /// the current session: the new envelope replaces the old under a new
    /// request id (the relay may have taken the old one without our knowing;
    /// the same id with other bytes would be refused as a conflict).
    public func replaceEnvelope(requestId: String, newRequestId: String, sealedPayload: [UInt8], at time: Milliseconds) throws {
        try database.transaction { db in
            guard let item = try item(requestId: requestId) else { throw StoreError.notFound("outbox request") }
            try db.execute("""
                UPDATE outbox SET request_id = ?, payload = ?, status = 'pending', next_attempt_at = ? WHERE request_id = ?
                """, [newRequestId, sealedPayload, time, requestId])
            if let messageId = item.messageId {
                try db.execute("UPDATE messages SET status = 'pending' WHERE id = ? AND status = 'failed'", [messageId])
            }
        }
    }

    /// Drops a request (and its unsent message, if still unacknowledged).
    public func delete(requestId: String) throws {
        try database.transaction { db in
            guard let item = try item(requestId: requestId) else { return }
            try db.execute("DELETE FROM outbox WHERE request_id = ?", [requestId])
            if let messageId = item.messageId {
                try db.execute("DELETE FROM messages WHERE id = ? AND server_id IS NULL", [messageId])
                try ConversationRepository(database: db).refreshSummary(item.conversationId)
            }
        }
    }
}
