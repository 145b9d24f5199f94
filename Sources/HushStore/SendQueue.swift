import HushDatabase

/// Outgoing messages and the relay requests that carry them, kept in step:
/// each call writes the request (`OutboxRepository`) and what its fate means
/// for its message (`MessageRepository`, the one writer of `messages.status`).
///
/// Every call joins the caller's transaction, or opens its own when there is
/// none; it never nests a savepoint. A send queues one message per
/// transaction and a sync may queue hundreds of receipts in one, and each
/// savepoint would cost a sub-journal copy (encrypted again by SQLCipher) of
/// every page it touches. The flip side: inside a caller's transaction a
/// throw leaves partial writes for the caller to roll back, so callers must
/// not catch and carry on.
public struct SendQueue {
    let database: Database

    private var messages: MessageRepository { MessageRepository(database: database) }
    private var outbox: OutboxRepository { OutboxRepository(database: database) }

    /// Stores a new outgoing message as pending and queues its sealed
    /// envelope. Returns the message's local id.
    public func queue(_ message: NewMessage, requestId: String, sealedPayload: [UInt8], at time: Milliseconds) throws -> Int64 {
        try database.withinTransaction { _ in
            var pending = message
            pending.serverId = nil
            pending.status = .pending
            guard case let .inserted(messageId) = try messages.insert(pending) else {
                throw StoreError.invalidArgument("client message id already used")
            }
            try outbox.enqueue(requestId: requestId, messageId: messageId, conversationId: message.conversationId,
                               sealedPayload: sealedPayload, at: time)
            return messageId
        }
    }

    /// The relay accepted the request (201): its message (if any) gets the
    /// relay's id and time and becomes sent, and the request with its sealed
    /// payload is removed. Returns the message id, if the request had one.
    @discardableResult
    public func markSent(requestId: String, serverId: Int64, relayTimestamp: Milliseconds) throws -> Int64? {
        // Checked before anything is written, so a bad id leaves nothing for
        // a caller's transaction to roll back.
        _ = try MessagePosition.acknowledged(serverId: serverId)
        return try database.withinTransaction { _ in
            guard let item = try outbox.remove(requestId: requestId) else { throw StoreError.notFound("outbox request") }
            if let messageId = item.messageId {
                try messages.recordAccepted(messageId: messageId, serverId: serverId, relayTimestamp: relayTimestamp)
            }
            return item.messageId
        }
    }

    /// A failed attempt. With `nextAttemptAt` the request stays pending for
    /// a retry then; without, it is failed for good (and so is its message)
    /// until the user retries or deletes it.
    public func markFailed(requestId: String, error: String, nextAttemptAt: Milliseconds?) throws {
        try database.withinTransaction { _ in
            guard let item = try outbox.item(requestId: requestId) else { throw StoreError.notFound("outbox request") }
            try outbox.recordFailure(requestId: requestId, error: error, nextAttemptAt: nextAttemptAt)
            if nextAttemptAt == nil, let messageId = item.messageId {
                try messages.moveOutgoing(messageId: messageId, to: .failed)
            }
        }
    }

    /// The user asked to retry a failed request now.
    public func retry(requestId: String, at time: Milliseconds) throws {
        try database.withinTransaction { _ in
            guard let item = try outbox.item(requestId: requestId) else { throw StoreError.notFound("outbox request") }
            try outbox.reschedule(requestId: requestId, at: time)
            try outbox.resetFailures(requestId: requestId)
            if let messageId = item.messageId { try messages.moveOutgoing(messageId: messageId, to: .pending) }
        }
    }

    /// The user asked to retry a request whose message was sealed again on
    /// the current session: the new envelope replaces the old under a new
    /// request id (the relay may have taken the old one without our knowing;
    /// the same id with other bytes would be refused as a conflict).
    public func replaceEnvelope(requestId: String, newRequestId: String, sealedPayload: [UInt8], at time: Milliseconds) throws {
        try database.withinTransaction { _ in
            guard let item = try outbox.item(requestId: requestId) else { throw StoreError.notFound("outbox request") }
            try outbox.replaceEnvelope(requestId: requestId, newRequestId: newRequestId, sealedPayload: sealedPayload, at: time)
            try outbox.resetFailures(requestId: newRequestId)
            if let messageId = item.messageId { try messages.moveOutgoing(messageId: messageId, to: .pending) }
        }
    }

    /// Drops a request that can go nowhere any more, its message (if it
    /// carries one) failed: kept in the outbox, a retry would post it where
    /// it was sealed for.
    public func abandon(requestId: String) throws {
        try database.withinTransaction { _ in
            guard let item = try outbox.remove(requestId: requestId), let messageId = item.messageId else { return }
            _ = try messages.moveOutgoing(messageId: messageId, to: .failed)
        }
    }

    /// Drops a request (and its unsent message, if still unacknowledged).
    public func delete(requestId: String) throws {
        try database.withinTransaction { _ in
            guard let item = try outbox.remove(requestId: requestId) else { return }
            if let messageId = item.messageId { try messages.deleteUnacknowledged(messageId: messageId) }
        }
    }
}
