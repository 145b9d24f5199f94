import HushDatabase

extension MessageRepository {
    /// Recomputes a conversation's denormalised last message and unread
    /// count after messages left it or changed place. The summary is derived
    /// from the messages, so the repository that writes them keeps it (as
    /// `insert` does incrementally); the conversation list only reads it.
    func refreshConversationSummary(_ conversationId: Int64) throws {
        try database.execute("""
            UPDATE conversations SET
                last_message_id = (SELECT id FROM messages WHERE conversation_id = ?1 AND \(Self.shown) ORDER BY position DESC, id DESC LIMIT 1),
                last_position = (SELECT position FROM messages WHERE conversation_id = ?1 AND \(Self.shown) ORDER BY position DESC, id DESC LIMIT 1),
                last_activity_at = (SELECT created_at FROM messages WHERE conversation_id = ?1 AND \(Self.shown) ORDER BY position DESC, id DESC LIMIT 1),
                unread_count = (SELECT count(*) FROM messages WHERE conversation_id = ?1 AND direction = 'in' AND read_at IS NULL)
            WHERE id = ?1
            """, [conversationId])
    }
}
