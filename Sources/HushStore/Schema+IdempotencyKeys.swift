import HushDatabase

extension Schema {
    /// Version 24: the caller's idempotency key of each message sent with
    /// one, stored in the transaction that queues the message. A send that
    /// brings a key already here returns that message and sends nothing,
    /// so a client that retries a request it got no answer to (the daemon
    /// restarted, the socket dropped) never sends twice. The key goes with
    /// its message (deleted with it).
    static func addIdempotencyKeys(_ db: Database) throws {
        try db.execute("""
            CREATE TABLE send_idempotency_keys(
                key TEXT PRIMARY KEY,
                message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
                created_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX send_idempotency_keys_by_message ON send_idempotency_keys(message_id);
            """)
    }
}
