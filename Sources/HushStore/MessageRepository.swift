import HushDatabase

/// Messages: insertion with de-duplication, history by keyset pagination,
/// read marks, full-text search and deletion.
public struct MessageRepository {
    let database: Database

    /// Stores one message, its search-index entry and its conversation's
    /// summary. A second copy (same client message id) is not stored again:
    /// the existing id comes back as `.duplicate`.
    ///
    /// Three single-row statements rather than `AFTER INSERT` triggers: a
    /// trigger makes the INSERT a multi-row write that needs a statement
    /// journal, and each statement journal costs SQLCipher an encryption of
    /// every page the row touches and makes FTS4 flush its pending terms into
    /// a one-document segment (then merge those). None of the three opens
    /// one, so a batch reaches the index as one segment at commit.
    @discardableResult
    public func insert(_ message: NewMessage) throws -> InsertResult {
        var position = try MessagePosition.of(serverId: message.serverId, createdAt: message.createdAt)
        if message.isLocalNotice, message.serverId == nil {
            let shown = try database.queryFirst("SELECT max(position) FROM messages WHERE conversation_id = ? AND position < ?",
                                                [message.conversationId, MessagePosition.pendingBase]) { try $0.get(0, as: Int64?.self) } ?? nil
            position = MessagePosition.local(after: shown)
        }
        let read: Milliseconds? = message.status == .read ? message.createdAt : nil
        return try database.withinTransaction { db in
            // OR IGNORE skips only the duplicate: every other constraint is
            // guaranteed by the types above, and foreign keys still fail loudly.
            try db.execute("""
                INSERT OR IGNORE INTO messages(conversation_id, server_id, client_message_id, direction, sender, body,
                    content_type, status, created_at, relay_timestamp, read_at, position, reply_to, expires_after)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [message.conversationId, message.serverId, message.clientMessageId, message.direction.rawValue,
                      message.sender, message.body, message.contentType, message.status.rawValue, message.createdAt,
                      message.relayTimestamp, read, position, message.replyTo, message.expiresAfter])
            guard db.changes == 1 else {
                let existing = try db.queryFirst("SELECT id FROM messages WHERE client_message_id = ?",
                                                 [message.clientMessageId]) { try $0.get(0, as: Int64.self) }
                guard let existing else { throw StoreError.notFound("the conversation of the message") }
                return .duplicate(existingId: existing)
            }
            let id = db.lastInsertRowID
            try db.execute("INSERT INTO messages_fts(docid, body) VALUES (?, ?)", [id, message.body])
            let unread = message.direction == .incoming && read == nil ? 1 : 0
            // OR FAIL: on this one-row update it fails exactly like the
            // default ABORT, without asking for a statement journal.
            try db.execute("""
                UPDATE OR FAIL conversations SET
                    last_message_id = CASE WHEN last_position IS NULL OR ?1 >= last_position THEN ?2 ELSE last_message_id END,
                    last_activity_at = CASE WHEN last_position IS NULL OR ?1 >= last_position THEN ?3 ELSE last_activity_at END,
                    last_position = max(coalesce(last_position, ?1), ?1),
                    unread_count = unread_count + ?4
                WHERE id = ?5
                """, [position, id, message.createdAt, unread, message.conversationId])
            return .inserted(id: id)
        }
    }

    /// Stores many messages in one transaction (sync batches, imports).
    @discardableResult
    public func insert(contentsOf messages: [NewMessage]) throws -> [InsertResult] {
        try database.withinTransaction { _ in try messages.map { try insert($0) } }
    }

    /// The id of the newest message (0 when there is none), from which
    /// `incomingCount(after:)` counts what a sync stored.
    public func newestId() throws -> Int64 {
        try database.queryFirst("SELECT coalesce(max(id), 0) FROM messages") { try $0.get(0, as: Int64.self) } ?? 0
    }

    /// How many incoming messages were stored after message `id`, leaving
    /// out rows whose content type is in `notices` (what the client wrote
    /// into a conversation itself: a changed timer, a changed device list).
    public func incomingCount(after id: Int64, excluding notices: [String] = []) throws -> Int {
        let excluded = notices.isEmpty ? "" : " AND content_type NOT IN (\(notices.map { _ in "?" }.joined(separator: ", ")))"
        let arguments: [any DatabaseValueConvertible] = [id] + notices
        return try database.queryFirst("SELECT count(*) FROM messages WHERE id > ? AND direction = 'in'" + excluded, arguments) {
            try $0.get(0, as: Int.self)
        } ?? 0
    }

    public func message(id: Int64) throws -> StoredMessage? {
        try database.queryFirst("SELECT \(StoredMessage.columns) FROM messages WHERE id = ?", [id]) { try StoredMessage(row: $0) }
    }

    public func message(clientMessageId: String) throws -> StoredMessage? {
        try database.queryFirst("SELECT \(StoredMessage.columns) FROM messages WHERE client_message_id = ?",
                                [clientMessageId]) { try StoredMessage(row: $0) }
    }

    // MARK: History

    /// A page of a conversation's history in display order (oldest first):
    /// the `limit` messages just before `before`, or just after `after`, or
    /// the latest ones when neither is given. Keyset pagination: the cost
    /// does not grow with how far back the page is.
    public func history(conversationId: Int64, before: Int64? = nil, after: Int64? = nil, limit: Int = 50) throws -> [StoredMessage] {
        guard limit > 0 else { return [] }
        if let after {
            let anchor = try position(of: after, in: conversationId)
            return try database.query("""
                SELECT \(StoredMessage.columns) FROM messages
                WHERE conversation_id = ? AND position >= ? AND (position > ? OR id > ?) AND \(Self.shown)
                ORDER BY position, id LIMIT ?
                """, [conversationId, anchor, anchor, after, limit]) { try StoredMessage(row: $0) }
        }
        let page: [StoredMessage]
        if let before {
            let anchor = try position(of: before, in: conversationId)
            page = try database.query("""
                SELECT \(StoredMessage.columns) FROM messages
                WHERE conversation_id = ? AND position <= ? AND (position < ? OR id < ?) AND \(Self.shown)
                ORDER BY position DESC, id DESC LIMIT ?
                """, [conversationId, anchor, anchor, before, limit]) { try StoredMessage(row: $0) }
        } else {
            page = try database.query("""
                SELECT \(StoredMessage.columns) FROM messages WHERE conversation_id = ? AND \(Self.shown)
                ORDER BY position DESC, id DESC LIMIT ?
                """, [conversationId, limit]) { try StoredMessage(row: $0) }
        }
        return page.reversed()
    }

    func position(of messageId: Int64, in conversationId: Int64) throws -> Int64 {
        let position = try database.queryFirst("SELECT position FROM messages WHERE id = ? AND conversation_id = ?",
                                                [messageId, conversationId]) { try $0.get(0, as: Int64.self) }
        guard let position else { throw StoreError.notFound("message \(messageId)") }
        return position
    }

    // MARK: Search

    /// Full-text search over bodies (FTS4), newest first. Each word of
    /// `text` must occur; FTS query syntax in `text` is treated as words.
    /// The index holds letters and digits only (unicode61), so a word with
    /// neither (an emoji, "?!") is looked for in the bodies as typed.
    public func search(_ text: String, conversationId: Int64? = nil, limit: Int = 20) throws -> [SearchHit] {
        let words = text.split(whereSeparator: { $0.isWhitespace }).map { String($0.filter { $0 != "\"" }) }.filter { !$0.isEmpty }
        guard !words.isEmpty, limit > 0 else { return [] }
        let indexed = words.filter(Self.hasIndexedCharacter)
        let literal = words.filter { !Self.hasIndexedCharacter($0) }
        var conditions = literal.map { _ in "instr(m.body, ?) > 0" }
        var arguments: [any DatabaseValueConvertible] = literal
        if let conversationId {
            conditions.append("m.conversation_id = ?")
            arguments.append(conversationId)
        }
        guard !indexed.isEmpty else {
            // No word the index holds: a scan of the bodies, newest first, until `limit` hits.
            arguments.append(limit)
            return try database.query("""
                SELECT \(StoredMessage.columns(prefix: "m.")) FROM messages m
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY m.id DESC LIMIT ?
                """, arguments) { row in
                let message = try StoredMessage(row: row)
                return SearchHit(message: message, snippet: Self.snippet(of: message.body, around: literal[0]))
            }
        }
        let match = indexed.map { "\"" + $0 + "\"" }.joined(separator: " ")
        arguments.insert(match, at: 0)
        arguments.append(limit)
        return try database.query("""
            SELECT \(StoredMessage.columns(prefix: "m.")),
                   snippet(messages_fts, '[', ']', '…', -1, 12)
            FROM messages_fts JOIN messages m ON m.id = messages_fts.docid
            WHERE messages_fts MATCH ? \(conditions.map { "AND " + $0 }.joined(separator: " "))
            ORDER BY m.id DESC LIMIT ?
            """, arguments) { row in
            SearchHit(message: try StoredMessage(row: row), snippet: try row.get(StoredMessage.columnNames.count))
        }
    }

    /// Whether the index's tokenizer (unicode61) keeps a character of `word`:
    /// it keeps letters and digits and treats everything else as a separator.
    static func hasIndexedCharacter(_ word: String) -> Bool {
        word.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil }
    }

    /// A snippet like FTS's: `word` in brackets, with up to `context`
    /// characters on either side, cut ends marked with "…".
    static func snippet(of body: String, around word: String, context: Int = 40) -> String {
        guard let found = body.range(of: word) else { return body }
        let start = body.index(found.lowerBound, offsetBy: -context, limitedBy: body.startIndex) ?? body.startIndex
        let end = body.index(found.upperBound, offsetBy: context, limitedBy: body.endIndex) ?? body.endIndex
        return (start == body.startIndex ? "" : "…") + body[start..<found.lowerBound] + "[" + body[found] + "]"
            + body[found.upperBound..<end] + (end == body.endIndex ? "" : "…")
    }

    // MARK: Deletion

    /// Deletes every message created before `time`, in every conversation,
    /// and returns how many went. Conversation summaries are recomputed.
    @discardableResult
    public func deleteMessages(olderThan time: Milliseconds) throws -> Int {
        try database.withinTransaction { db in
            let affected = try db.query("SELECT DISTINCT conversation_id FROM messages WHERE created_at < ?", [time]) {
                try $0.get(0, as: Int64.self)
            }
            try db.execute("DELETE FROM messages WHERE created_at < ?", [time])
            let deleted = db.changes
            for id in affected { try refreshConversationSummary(id) }
            return deleted
        }
    }

    /// Deletes outgoing message `messageId` if the relay never acknowledged
    /// it (a dropped request's message); an acknowledged one stays history.
    public func deleteUnacknowledged(messageId: Int64) throws {
        try database.withinTransaction { db in
            let conversationId = try db.queryFirst("SELECT conversation_id FROM messages WHERE id = ? AND server_id IS NULL",
                                                   [messageId]) { try $0.get(0, as: Int64.self) }
            guard let conversationId else { return }
            try db.execute("DELETE FROM messages WHERE id = ?", [messageId])
            try refreshConversationSummary(conversationId)
        }
    }
}
