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
        try decodeItem(row, from: 0)
    }

    /// The item whose columns (`columns`) start at `first`.
    private func decodeItem(_ row: Row, from first: Int) throws -> OutboxItem {
        OutboxItem(requestId: try row.get(first), messageId: try row.get(first + 1), conversationId: try row.get(first + 2),
                   payload: try row.get(first + 3), status: OutboxStatus(rawValue: try row.get(first + 4)) ?? .failed,
                   failCount: try row.get(first + 5), nextAttemptAt: try row.get(first + 6), lastSentAt: try row.get(first + 7),
                   lastError: try row.get(first + 8), createdAt: try row.get(first + 9))
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
        try duePage(at: time, afterRow: 0, limit: limit).items
    }

    /// `duePage`'s query: ?1 the time, ?2 the limit, ?3 the row after which
    /// the page starts. The later request of the same conversation is found
    /// through `outbox_by_conversation` (schema version 37).
    static let duePageQuery = """
        SELECT rowid, \(columns) FROM outbox AS waiting WHERE rowid > ?3 AND status = 'pending' AND (next_attempt_at <= ?1 OR EXISTS (
            SELECT 1 FROM outbox AS due WHERE due.status = 'pending' AND due.next_attempt_at <= ?1
            AND due.conversation_id = waiting.conversation_id AND due.rowid > waiting.rowid))
        ORDER BY rowid LIMIT ?2
        """

    /// A page of `due(at:)` in the order requests were queued, after the
    /// row `afterRow` (0: from the start), and the last row it holds: the
    /// next page starts after it, so a pass takes each request once (a
    /// request brought along stays in the answer while a later one is due,
    /// and pages by offset or by "not tried yet" would stall on it).
    public func duePage(at time: Milliseconds, afterRow: Int64, limit: Int = 100) throws -> (items: [OutboxItem], lastRow: Int64?) {
        let rows: [(Int64, OutboxItem)] = try database.query(Self.duePageQuery, [time, limit, afterRow]) { row in
            (try row.get(0, as: Int64.self), try decodeItem(row, from: 1))
        }
        return (rows.map(\.1), rows.last?.0)
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

    /// Puts a request off until `time` without counting an attempt, saying
    /// why in its last error (a request before it could not be posted).
    public func postpone(requestId: String, until time: Milliseconds, reason: String) throws {
        try database.execute("UPDATE outbox SET next_attempt_at = max(next_attempt_at, ?), last_error = ? WHERE request_id = ? AND status = 'pending'",
                             [time, reason, requestId])
    }

    /// Makes a request pending and due at `time` (the user retries it now).
    /// Makes every pending request that waits out a backoff after a failure
    /// whose text starts with `errorPrefix` due at `time` (the relay answered
    /// again: nothing need wait up to the backoff's five minutes for it; one
    /// that waits out the relay's Retry-After keeps waiting). Returns how many.
    @discardableResult
    public func makeWaitingDue(at time: Milliseconds, failedWith errorPrefix: String) throws -> Int {
        try database.execute("""
            UPDATE outbox SET next_attempt_at = ? WHERE status = 'pending' AND next_attempt_at > ? AND substr(last_error, 1, ?) = ?
            """, [time, time, Int64(errorPrefix.count), errorPrefix])
        return database.changes
    }

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

    /// Makes `requestId` the request that carries message `messageId` (its
    /// status follows that request's outcome from now on).
    public func carry(messageId: Int64, requestId: String) throws {
        try database.execute("UPDATE outbox SET message_id = ? WHERE request_id = ?", [messageId, requestId])
    }

    /// Forgets a request's failed attempts: the user asked to retry it, and
    /// it gets a new round (kept, one failed try gave it up again at once).
    public func resetFailures(requestId: String) throws {
        try database.execute("UPDATE outbox SET fail_count = 0 WHERE request_id = ?", [requestId])
    }
}
