import HushDatabase

/// One version of a message's text: the original or an edit.
public struct MessageVersion: Sendable, Equatable {
    /// The client message id of the edit that carried it; nil for the original.
    public let editId: String?
    public let body: String
    /// The author's clock when they wrote this version, in milliseconds since 1970.
    public let sentAt: Milliseconds
}

/// What `EditRepository.record` did with an edit.
public enum EditOutcome: Sendable, Equatable {
    /// The edit is the newest version: the message shows it now.
    case applied
    /// Kept in the history, but a newer edit (by the author's clock) is shown.
    case superseded
    /// This edit (its client message id) was stored before.
    case duplicate
    /// The message already had as many edits as `limit` allows; nothing changed.
    case limitReached
}

/// Edits of messages (docs/PROTOCOL.md §10.6): every version is kept, and
/// the message's body (what history shows and search finds) is the newest by
/// the author's clock.
public struct EditRepository {
    let database: Database

    /// Records `body` as an edit of message `messageId`, written at `sentAt`
    /// by the author, unless it was stored before or the message already has
    /// `limit` edits. The first edit also keeps the original text as a
    /// version. When it is the newest, the message's body and `edited_at`
    /// change (and with the body, its search entry) in this transaction.
    public func record(messageId: Int64, editId: String, body: String, sentAt: Milliseconds, limit: Int) throws -> EditOutcome {
        try database.withinTransaction { db in
            let known = try db.queryFirst("SELECT 1 FROM message_versions WHERE edit_id = ?", [editId]) { try $0.get(0, as: Int64.self) }
            guard known == nil else { return .duplicate }
            let edits = try db.queryFirst("SELECT count(*) FROM message_versions WHERE message_id = ? AND edit_id IS NOT NULL",
                                          [messageId]) { try $0.get(0, as: Int64.self) } ?? 0
            guard edits < Int64(limit) else { return .limitReached }
            let current = try db.queryFirst("SELECT body, created_at, edited_at FROM messages WHERE id = ?", [messageId]) { row in
                (body: try row.get(0, as: String.self), createdAt: try row.get(1, as: Int64.self), editedAt: try row.get(2, as: Int64?.self))
            }
            guard let current else { throw StoreError.notFound("message \(messageId)") }
            if edits == 0 {
                try db.execute("INSERT INTO message_versions(message_id, edit_id, body, sent_at) VALUES (?, NULL, ?, ?)",
                               [messageId, current.body, current.createdAt])
            }
            try db.execute("INSERT INTO message_versions(message_id, edit_id, body, sent_at) VALUES (?, ?, ?, ?)",
                           [messageId, editId, body, sentAt])
            // Equal times: the one received later wins, as for reactions.
            if let editedAt = current.editedAt, editedAt > sentAt { return .superseded }
            try db.execute("UPDATE messages SET body = ?, edited_at = ? WHERE id = ?", [body, sentAt, messageId])
            return .applied
        }
    }

    /// How many edits message `messageId` has had.
    public func count(messageId: Int64) throws -> Int {
        Int(try database.queryFirst("SELECT count(*) FROM message_versions WHERE message_id = ? AND edit_id IS NOT NULL",
                                    [messageId]) { try $0.get(0, as: Int64.self) } ?? 0)
    }

    /// Every version of message `messageId`, oldest first (by the author's
    /// clock): empty for a message never edited.
    public func versions(messageId: Int64) throws -> [MessageVersion] {
        try database.query("""
            SELECT edit_id, body, sent_at FROM message_versions WHERE message_id = ? ORDER BY sent_at, id
            """, [messageId]) { row in
            MessageVersion(editId: try row.get(0), body: try row.get(1), sentAt: try row.get(2))
        }
    }
}
