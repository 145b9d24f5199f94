import HushDatabase

/// Conversations: the list, storage usage, creation and deletion.
public struct ConversationRepository {
    let database: Database

    /// The conversation with `contactId`, created when missing.
    public func conversation(forContact contactId: Int64, title: String, at time: Milliseconds) throws -> Int64 {
        if let id = try database.queryFirst("SELECT id FROM conversations WHERE contact_id = ?", [contactId], { try $0.get(0, as: Int64.self) }) {
            return id
        }
        try database.execute("INSERT INTO conversations(contact_id, title, created_at) VALUES (?, ?, ?)", [contactId, title, time])
        return database.lastInsertRowID
    }

    /// A conversation without a contact (notes to self, imports, benchmarks).
    public func create(title: String, at time: Milliseconds) throws -> Int64 {
        try database.execute("INSERT INTO conversations(contact_id, title, created_at) VALUES (NULL, ?, ?)", [title, time])
        return database.lastInsertRowID
    }

    /// Conversations ordered by their latest message (newest first; empty
    /// ones last), with unread counts and the last message: all of them, or
    /// the first `limit`. With `standing`, only those whose contact stands so;
    /// a conversation without a contact (a group's) counts as accepted. The
    /// ORDER BY is the index `conversations_by_activity`: keep the two identical.
    /// The newest conversation's id, if there is one: what a request that
    /// belongs to no conversation is filed under (the outbox files each
    /// request under one; see `OwnDevices`).
    public func newestId() throws -> Int64? {
        try database.queryFirst("SELECT max(id) FROM conversations") { try $0.get(0, as: Int64?.self) } ?? nil
    }

    /// The newest conversation of a group or of a contact the user decided
    /// on (accepted or blocked): one that stays while requests come and go
    /// (a request's conversation goes when it is declined or makes room for
    /// a newer one, and with it what was queued under it).
    public func newestLastingId() throws -> Int64? {
        // Newest first, stopping at the first that qualifies: not a scan of every conversation (this
        // runs whenever a device of ours is sent something that waits for a conversation to go under).
        try database.queryFirst("""
            SELECT c.id FROM conversations c LEFT JOIN contacts k ON k.id = c.contact_id
            WHERE c.contact_id IS NULL OR k.standing != 'requested'
            ORDER BY c.id DESC LIMIT 1
            """) { try $0.get(0, as: Int64.self) }
    }

    public func list(limit: Int = .max, standing: ContactStanding? = nil) throws -> [ConversationSummary] {
        try database.query("""
            SELECT \(Self.summaryColumns)
            FROM conversations c LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE ?1 IS NULL OR coalesce((SELECT standing FROM contacts WHERE id = c.contact_id), 'accepted') = ?1
            ORDER BY c.last_activity_at IS NULL, c.last_activity_at DESC, c.id DESC
            LIMIT ?2
            """, [standing?.rawValue, limit], Self.summary)
    }

    /// Conversation `id` as the list shows it, or nil when there is none.
    public func summary(id: Int64) throws -> ConversationSummary? {
        try database.queryFirst("""
            SELECT \(Self.summaryColumns)
            FROM conversations c LEFT JOIN messages m ON m.id = c.last_message_id
            WHERE c.id = ?
            """, [id], Self.summary)
    }

    static let summaryColumns = "c.id, c.contact_id, c.title, c.unread_count, c.last_activity_at, \(StoredMessage.columns(prefix: "m."))"

    static func summary(_ row: Row) throws -> ConversationSummary {
        let hasMessage = row.value(at: 5) != .null
        return ConversationSummary(
            id: try row.get(0), contactId: try row.get(1), title: try row.get(2), unreadCount: try row.get(3),
            lastActivityAt: try row.get(4), lastMessage: hasMessage ? try StoredMessage(row: row, offset: 5) : nil)
    }

    /// Estimated bytes of history per conversation, largest first.
    public func storageUsage() throws -> [StorageUsage] {
        try database.query("""
            SELECT c.id, c.title, count(m.id),
                   coalesce(sum(length(CAST(m.body AS BLOB)) + length(m.client_message_id) + length(m.sender) + 64), 0)
                   + coalesce((SELECT sum(length(payload)) FROM outbox o WHERE o.conversation_id = c.id), 0)
            FROM conversations c LEFT JOIN messages m ON m.conversation_id = c.id
            GROUP BY c.id ORDER BY 4 DESC
            """) { row in
            StorageUsage(conversationId: try row.get(0), title: try row.get(1), messageCount: try row.get(2), bytes: try row.get(3))
        }
    }

    /// Deletes a conversation with its messages, outbox entries and search index entries.
    public func delete(_ conversationId: Int64) throws {
        try database.withinTransaction { db in
            // Explicit, so the search-index triggers run whatever foreign_keys says.
            try db.execute("DELETE FROM messages WHERE conversation_id = ?", [conversationId])
            try db.execute("DELETE FROM outbox WHERE conversation_id = ?", [conversationId])
            try db.execute("DELETE FROM conversations WHERE id = ?", [conversationId])
            if db.changes == 0 { throw StoreError.notFound("conversation \(conversationId)") }
        }
    }
}
