import HushDatabase

/// A reaction as stored: who reacted to a message with which emoji.
public struct StoredReaction: Sendable, Equatable {
    public let messageId: Int64
    /// The reactor's address (hush1…): ours for our own reactions.
    public let reactor: String
    public let emoji: String
    /// The reactor's clock when they reacted, in milliseconds since 1970.
    public let sentAt: Milliseconds
}

/// Reactions: one per reactor per message (docs/PROTOCOL.md §10.5), the
/// latest by the reactor's clock. A removal is kept as an empty emoji so an
/// older change that arrives late (a resend) does not bring it back.
public struct ReactionRepository {
    let database: Database

    /// Records `reactor`'s reaction to a message (`nil`: taken away) unless a
    /// later one from them is already stored. Returns whether it took effect.
    @discardableResult
    public func record(messageId: Int64, reactor: String, emoji: String?, sentAt: Milliseconds) throws -> Bool {
        // No UPSERT: the SQLCipher this builds against (SQLite 3.15) predates it.
        try database.withinTransaction { db in
            let stored = try db.queryFirst("SELECT sent_at FROM reactions WHERE message_id = ? AND reactor = ?",
                                           [messageId, reactor]) { try $0.get(0, as: Int64.self) }
            if let stored, stored > sentAt { return false }
            try db.execute("INSERT OR REPLACE INTO reactions(message_id, reactor, emoji, sent_at) VALUES (?, ?, ?, ?)",
                           [messageId, reactor, emoji ?? "", sentAt])
            return true
        }
    }

    /// The reactions standing on each of `messageIds` (removals left out),
    /// oldest first.
    public func reactions(messageIds: [Int64]) throws -> [Int64: [StoredReaction]] {
        guard !messageIds.isEmpty else { return [:] }
        var result: [Int64: [StoredReaction]] = [:]
        // In chunks: SQLite bounds the number of parameters of one statement.
        for start in stride(from: 0, to: messageIds.count, by: 500) {
            let chunk = Array(messageIds[start..<min(start + 500, messageIds.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try database.query("""
                SELECT message_id, reactor, emoji, sent_at FROM reactions
                WHERE message_id IN (\(marks)) AND emoji != '' ORDER BY sent_at, reactor
                """, chunk) { row in
                StoredReaction(messageId: try row.get(0), reactor: try row.get(1), emoji: try row.get(2), sentAt: try row.get(3))
            }
            for reaction in rows { result[reaction.messageId, default: []].append(reaction) }
        }
        return result
    }
}
