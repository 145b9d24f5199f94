import HushDatabase
import HushCrypto

/// Erasing messages (docs/PROTOCOL.md §10.7): the one place deletion (for
/// me, for everyone) and expiry take a message out of the store.
extension MessageRepository {
    /// What an erased message's `content_type` becomes.
    public enum Erasure: String, Sendable {
        /// Deleted (by the user here, or by its author for everyone): shown as "deleted".
        case deleted
        /// Its disappearing timer ran out: not shown at all.
        case expired
    }

    /// The content types of erased messages.
    public static let erasedContentTypes: Set<String> = [Erasure.deleted.rawValue, Erasure.expired.rawValue]

    /// The SQL condition a history shows a message under (expired ones are gone).
    static let shown = "content_type != 'expired'"

    /// Erases message `messageId`: empties its body (the search index's
    /// entry goes with it, by the update triggers), drops its reply quote,
    /// timer, reactions, attachment row and edit history (its earlier
    /// versions, §10.6, would otherwise still be readable, and so would the
    /// text of our edits kept for resending them), counts it read, and keeps the
    /// row as a tombstone (its client message id stops a late copy). The
    /// attachment's file is the caller's to remove (the messenger owns the
    /// files): the ids of the removed attachment rows come back. An erased
    /// message is not erased again (an expiry does not hide a deletion's
    /// tombstone); nil then, or when there is no such message.
    @discardableResult
    public func erase(messageId: Int64, as erasure: Erasure, at time: Milliseconds) throws -> [Int64]? {
        try database.withinTransaction { db in
            let found = try db.queryFirst("SELECT conversation_id, client_message_id FROM messages WHERE id = ? AND deleted_at IS NULL",
                                          [messageId]) { (try $0.get(0, as: Int64.self), try $0.get(1, as: String.self)) }
            guard let (conversationId, clientMessageId) = found else { return nil }
            // The text of our edits of it, kept for resending them (§10.1).
            if let editedID = try? Hex.decode(clientMessageId) {
                try db.execute("DELETE FROM sent_contents WHERE edit_of = ?", [editedID])
                try db.execute("DELETE FROM sent_group_contents WHERE edit_of = ?", [editedID])
            }
            let attachments = try db.query("SELECT id FROM attachments WHERE message_id = ?", [messageId]) { try $0.get(0, as: Int64.self) }
            try db.execute("DELETE FROM attachments WHERE message_id = ?", [messageId])
            try db.execute("DELETE FROM reactions WHERE message_id = ?", [messageId])
            try db.execute("DELETE FROM message_versions WHERE message_id = ?", [messageId])
            try db.execute("""
                UPDATE messages SET body = '', content_type = ?, deleted_at = ?, reply_to = NULL, edited_at = NULL,
                    expires_after = NULL, expires_at = NULL, read_at = coalesce(read_at, ?)
                WHERE id = ?
                """, [erasure.rawValue, time, time, messageId])
            try refreshConversationSummary(conversationId)
            return attachments
        }
    }

    /// Messages whose timer ran out by `time` and are not erased yet.
    public func expired(at time: Milliseconds) throws -> [Int64] {
        try database.query("SELECT id FROM messages WHERE expires_at IS NOT NULL AND expires_at <= ? AND deleted_at IS NULL",
                           [time]) { try $0.get(0, as: Int64.self) }
    }

    /// Starts the timer of our message `clientMessageId` in `conversationId`
    /// at `time` (when a read receipt for it says it was read: the first one,
    /// in a group). Returns whether it started.
    @discardableResult
    public func startExpiry(clientMessageId: String, conversationId: Int64, readAt time: Milliseconds) throws -> Bool {
        try database.execute("""
            UPDATE messages SET expires_at = ? + expires_after * 1000
            WHERE client_message_id = ? AND conversation_id = ? AND direction = 'out' AND expires_after IS NOT NULL
              AND expires_at IS NULL AND deleted_at IS NULL
            """, [time, clientMessageId, conversationId])
        return database.changes > 0
    }

    // MARK: Deletions that arrive before their message

    /// Remembers `sender`'s deletion of a message not stored yet.
    public func rememberEarlyDeletion(clientMessageId: String, sender: String, at time: Milliseconds) throws {
        try database.execute("INSERT OR REPLACE INTO early_deletions(client_message_id, sender, received_at) VALUES (?, ?, ?)",
                             [clientMessageId, sender, time])
    }

    /// Whether `sender` deleted message `clientMessageId` before it arrived
    /// (the remembered deletion is used up).
    public func takeEarlyDeletion(clientMessageId: String, sender: String) throws -> Bool {
        try database.execute("DELETE FROM early_deletions WHERE client_message_id = ? AND sender = ?", [clientMessageId, sender])
        return database.changes > 0
    }

    /// Forgets deletions remembered before `time`: their message, if it
    /// ever comes, is past the deletion window anyway.
    public func forgetEarlyDeletions(before time: Milliseconds) throws {
        try database.execute("DELETE FROM early_deletions WHERE received_at < ?", [time])
    }
}
