import HushDatabase

/// The sender's side of decryption errors: which message each sealed
/// envelope carried, and which messages were already resent.
public struct ResendRepository {
    let database: Database

    /// Remembers that the envelope with `digest` carries message `messageId`.
    public func recordEnvelope(digest: [UInt8], messageId: Int64, at time: Milliseconds) throws {
        try database.execute("INSERT OR REPLACE INTO sent_envelopes(digest, message_id, sealed_at) VALUES (?, ?, ?)",
                             [digest, messageId, time])
    }

    /// The message an envelope we sealed carried, if we still remember it.
    public func messageId(forEnvelope digest: [UInt8]) throws -> Int64? {
        try database.queryFirst("SELECT message_id FROM sent_envelopes WHERE digest = ?", [digest]) { try $0.get(0, as: Int64.self) }
    }

    /// Records a resend of a one-to-one message to its contact; false when
    /// it was already resent once.
    public func markResent(messageId: Int64, at time: Milliseconds) throws -> Bool {
        try markResent(messageId: messageId, member: [], at: time)
    }

    /// Records a resend of a group message to the member with identity key
    /// `member`; false when it was already resent to that member (each
    /// member has it at most once, whoever else had it).
    public func markResent(messageId: Int64, toMember member: [UInt8], at time: Milliseconds) throws -> Bool {
        precondition(!member.isEmpty, "a group member has an identity key")
        return try markResent(messageId: messageId, member: member, at: time)
    }

    private func markResent(messageId: Int64, member: [UInt8], at time: Milliseconds) throws -> Bool {
        try database.execute("INSERT OR IGNORE INTO message_resends(message_id, member_key, resent_at) VALUES (?, ?, ?)",
                             [messageId, member, time])
        return database.changes == 1
    }

    /// Client message ids of a conversation's messages resent after a
    /// decryption error (to anyone), each once, by its first resend.
    ///
    /// CROSS JOIN keeps the resends as the outer loop: there are few, while
    /// the planner, which has no statistics, would otherwise walk every
    /// message of the conversation through `messages_by_position` and look
    /// each one up among the resends (`hush history` on a conversation of
    /// 100,000 messages read them all).
    public func resentClientMessageIds(conversationId: Int64) throws -> [String] {
        try database.query(Self.resentInConversation, [conversationId]) { try $0.get(0, as: String.self) }
    }

    static let resentInConversation = """
        SELECT m.client_message_id FROM message_resends r CROSS JOIN messages m ON m.id = r.message_id
        WHERE m.conversation_id = ? GROUP BY m.id ORDER BY MIN(r.resent_at), m.id
        """

    /// Remembers that the envelope with `digest`, sealed to `contactId`,
    /// carries `content` (encoded), which is not a message in history;
    /// `resent` when it is itself a resend (not to be resent again).
    /// `editOf`: for an edit, the client message id of the message it edits
    /// (erasing that message forgets the edit's text, `forgetEdits`).
    public func recordContent(digest: [UInt8], contactId: Int64, content: [UInt8], resent: Bool, editOf: [UInt8]?,
                              at time: Milliseconds) throws {
        try database.execute("""
            INSERT OR REPLACE INTO sent_contents(digest, contact_id, content, sealed_at, resent, edit_of) VALUES (?, ?, ?, ?, ?, ?)
            """, [digest, contactId, content, time, resent ? 1 : 0, editOf])
    }

    /// The encoded content an envelope we sealed to `contactId` carried,
    /// unless it was resent already: marked resent as it is returned, so a
    /// content is resent automatically at most once.
    public func takeContentToResend(forEnvelope digest: [UInt8], contactId: Int64) throws -> [UInt8]? {
        guard let content = try database.queryFirst("SELECT content FROM sent_contents WHERE digest = ? AND contact_id = ? AND resent = 0",
                                                    [digest, contactId], { try $0.get(0, as: [UInt8].self) }) else { return nil }
        try database.execute("UPDATE sent_contents SET resent = 1 WHERE digest = ?", [digest])
        return content
    }

    /// Remembers that the group envelope with `digest`, sealed for the group
    /// of conversation `conversationId`, carries `content` (encoded, with id
    /// `contentId`), which is not a message in history.
    public func recordGroupContent(digest: [UInt8], conversationId: Int64, contentId: [UInt8], content: [UInt8], editOf: [UInt8]?,
                                   at time: Milliseconds) throws {
        try database.execute("""
            INSERT OR REPLACE INTO sent_group_contents(digest, conversation_id, content_id, content, sealed_at, edit_of)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [digest, conversationId, contentId, content, time, editOf])
    }

    /// The group conversation and the encoded content a group envelope we
    /// sealed carried, if it is one we remember.
    public func groupContent(forEnvelope digest: [UInt8]) throws -> (conversationId: Int64, contentId: [UInt8], content: [UInt8])? {
        try database.queryFirst("SELECT conversation_id, content_id, content FROM sent_group_contents WHERE digest = ?", [digest]) {
            (try $0.get(0, as: Int64.self), try $0.get(1, as: [UInt8].self), try $0.get(2, as: [UInt8].self))
        }
    }

    /// Records a resend of the group content `contentId` to the member with
    /// identity key `member`; false when it was already resent to them.
    public func markGroupContentResent(contentId: [UInt8], toMember member: [UInt8], at time: Milliseconds) throws -> Bool {
        try database.execute("INSERT OR IGNORE INTO group_content_resends(content_id, member_key, resent_at) VALUES (?, ?, ?)",
                             [contentId, member, time])
        return database.changes == 1
    }

    /// Forgets envelopes sealed before `time` (the relay has expired them),
    /// and resends made before it (the envelopes they sealed went too).
    public func forgetEnvelopes(sealedBefore time: Milliseconds) throws {
        try database.execute("DELETE FROM sent_envelopes WHERE sealed_at < ?", [time])
        try database.execute("DELETE FROM sent_contents WHERE sealed_at < ?", [time])
        try database.execute("DELETE FROM sent_group_contents WHERE sealed_at < ?", [time])
        try database.execute("DELETE FROM group_content_resends WHERE resent_at < ?", [time])
    }
}
