import HushDatabase

/// Message requests waiting for the relay. The backoff policy belongs to the
/// messenger; the store keeps the fields it needs (fail count, next attempt,
/// last sent, last error) and answers which requests are due. It writes the
/// outbox table only: what a request's fate does to its message is
/// `SendQueue`'s to compose.
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

    /// Pending requests whose next attempt is due at `time`, and with them
    /// the pending requests of the same conversations queued before a due
    /// one (still waiting out a backoff), in the order they were queued.
    /// Without them a message written after an outage went out before the
    /// one still backing off and showed above it on both sides.
    public func due(at time: Milliseconds, limit: Int = 100) throws -> [OutboxItem] {
        try database.query("""
            SELECT \(Self.columns) FROM outbox AS waiting WHERE status = 'pending' AND (next_attempt_at <= ?1 OR EXISTS (
                SELECT 1 FROM outbox AS due WHERE due.status = 'pending' AND due.next_attempt_at <= ?1
                AND due.conversation_id = waiting.conversation_id AND due.created_at >= waiting.created_at))
            ORDER BY created_at, rowid LIMIT ?2
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

    /// Removes a request with its sealed payload (accepted by the relay, or
    /// dropped); returns it, or nil when there was none.
    @discardableResult
    public func remove(requestId: String) throws -> OutboxItem? {
        guard let item = try item(requestId: requestId) else { return nil }
        try database.execute("DELETE FROM outbox WHERE request_id = ?", [requestId])
        return item
    }

    /// A failed attempt: with `nextAttemptAt` the request stays pending for a
    /// retry then; without, it is failed for good until the user retries it.
    public func recordFailure(requestId: String, error: String, nextAttemptAt: Milliseconds?) throws {
        let status: OutboxStatus = nextAttemptAt == nil ? .failed : .pending
        try database.execute("""
            UPDATE outbox SET fail_count = fail_count + 1, last_error = ?, status = ?,
                next_attempt_at = coalesce(?, next_attempt_at)
            WHERE request_id = ?
            """, [error, status.rawValue, nextAttemptAt, requestId])
    }

    /// Makes a request pending and due at `time` (the user retries it now).
    public func reschedule(requestId: String, at time: Milliseconds) throws {
        try database.execute("UPDATE outbox SET status = 'pending', next_attempt_at = ? WHERE request_id = ?", [time, requestId])
    }

    /// Replaces a request's envelope under a new request id, pending and due
    /// at `time` (see `SendQueue.replaceEnvelope`).
    public func replaceEnvelope(requestId: String, newRequestId: String, sealedPayload: [UInt8], at time: Milliseconds) throws {
        try database.execute("""
            UPDATE outbox SET request_id = ?, payload = ?, status = 'pending', next_attempt_at = ? WHERE request_id = ?
            """, [newRequestId, sealedPayload, time, requestId])
    }
}
