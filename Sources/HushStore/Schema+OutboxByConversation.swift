import HushDatabase

extension Schema {
    /// Version 37: the outbox indexed by conversation. A pass takes a request
    /// that is not due yet when a later one of its conversation is
    /// (`OutboxRepository.duePage`, so a conversation's messages leave in
    /// order); without this index that question scanned every due request for
    /// every waiting one, which with thousands queued while the relay was away
    /// grew with the square of the queue.
    static func addOutboxByConversation(_ db: Database) throws {
        try db.execute("CREATE INDEX outbox_by_conversation ON outbox(conversation_id, status, next_attempt_at)")
    }
}
