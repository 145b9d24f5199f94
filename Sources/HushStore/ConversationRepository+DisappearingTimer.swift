import HushDatabase

/// A conversation's disappearing-message timer (docs/PROTOCOL.md §10.7):
/// the one its last timer change set, ours or the peer's.
extension ConversationRepository {
    /// Seconds a new message of the conversation lives once read, or nil when off.
    public func disappearingTimer(conversationId: Int64) throws -> Int64? {
        try database.queryFirst("SELECT disappearing_after FROM conversations WHERE id = ?", [conversationId]) {
            try $0.get(0, as: Int64?.self)
        } ?? nil
    }

    /// Sets the timer (`nil` or 0: off).
    public func setDisappearingTimer(_ seconds: Int64?, conversationId: Int64) throws {
        let value: Int64? = seconds == 0 ? nil : seconds
        try database.execute("UPDATE conversations SET disappearing_after = ? WHERE id = ?", [value, conversationId])
    }
}
