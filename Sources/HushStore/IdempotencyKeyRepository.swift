import HushDatabase

/// Idempotency keys of sends (see `Schema.addIdempotencyKeys`): unique per
/// account, each naming the message it queued.
public struct IdempotencyKeyRepository {
    let database: Database

    /// Bytes of UTF-8 a key may have.
    public static let lengthRange = 1...128

    /// The client message id of the message sent with `key`, if one was.
    public func clientMessageId(forKey key: String) throws -> String? {
        try database.queryFirst("""
            SELECT m.client_message_id FROM send_idempotency_keys k JOIN messages m ON m.id = k.message_id WHERE k.key = ?
            """, [key]) { try $0.get(0, as: String.self) }
    }

    /// Records that `key` sent the message with `clientMessageId` (in the
    /// caller's transaction, with the message).
    public func record(_ key: String, clientMessageId: String, at time: Milliseconds) throws {
        try database.execute("""
            INSERT INTO send_idempotency_keys(key, message_id, created_at)
            SELECT ?, id, ? FROM messages WHERE client_message_id = ?
            """, [key, time, clientMessageId])
        guard database.changes == 1 else { throw StoreError.notFound("message of an idempotency key") }
    }
}
