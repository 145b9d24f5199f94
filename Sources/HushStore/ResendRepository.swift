import HushCrypto
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

    /// Records a resend of a one-to-one message to its contact, sealed on
    /// the session named by `session` (its handshake's `EK_A`,
    /// docs/PROTOCOL.md §10.1); false when it was already resent on that
    /// session. A newer session of the contact (a home restored again)
    /// earns one more; the same one never does, so a resend that fails
    /// where it went is not answered with another for ever.
    public func markResent(messageId: Int64, onSession session: [UInt8], at time: Milliseconds) throws -> Bool {
        try markResent(messageId: messageId, member: [], session: session, at: time)
    }

    /// Records a resend of a group message to the member (or member's
    /// device) with identity key `member`, the one-to-one session with that
    /// mailbox being `session`; false when it was already resent there
    /// (each member has it at most once per session, whoever else had it).
    public func markResent(messageId: Int64, toMember member: [UInt8], onSession session: [UInt8], at time: Milliseconds) throws -> Bool {
        precondition(!member.isEmpty, "a group member has an identity key")
        return try markResent(messageId: messageId, member: member, session: session, at: time)
    }

    private func markResent(messageId: Int64, member: [UInt8], session: [UInt8], at time: Milliseconds) throws -> Bool {
        try database.execute("INSERT OR IGNORE INTO message_resends(message_id, member_key, session, resent_at) VALUES (?, ?, ?, ?)",
                             [messageId, member, session, time])
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
    /// carries `content` (encoded), which is not a message in history (a
    /// resend too: a newer session of the contact may ask for it again).
    /// `editOf`: for an edit, the client message id of the message it edits
    /// (erasing that message forgets the edit's text, `forgetEdits`).
    public func recordContent(digest: [UInt8], contactId: Int64, content: [UInt8], editOf: [UInt8]?,
                              at time: Milliseconds) throws {
        try database.execute("""
            INSERT OR REPLACE INTO sent_contents(digest, contact_id, content, sealed_at, edit_of) VALUES (?, ?, ?, ?, ?)
            """, [digest, contactId, content, time, editOf])
    }

    /// The encoded content an envelope we sealed to `contactId` carried,
    /// unless that content was resent on `session` (the session it is to be
    /// sealed on now) already: recorded as resent there as it is returned,
    /// so a content goes again automatically at most once per session of
    /// the contact (docs/PROTOCOL.md §10.1). The original envelope and its
    /// resends carry the same content, so asking about either counts alike.
    public func takeContentToResend(forEnvelope digest: [UInt8], contactId: Int64, onSession session: [UInt8],
                                    at time: Milliseconds) throws -> [UInt8]? {
        guard let content = try database.queryFirst("SELECT content FROM sent_contents WHERE digest = ? AND contact_id = ?",
                                                    [digest, contactId], { try $0.get(0, as: [UInt8].self) }) else { return nil }
        try database.execute("INSERT OR IGNORE INTO content_resends(contact_id, content_digest, session, resent_at) VALUES (?, ?, ?, ?)",
                             [contactId, SHA256.hash(content), session, time])
        return database.changes == 1 ? content : nil
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

    /// Records a resend of the group content `contentId` to the member (or
    /// member's device) with identity key `member`, on the one-to-one
    /// session `session` with that mailbox; false when it was already
    /// resent there.
    public func markGroupContentResent(contentId: [UInt8], toMember member: [UInt8], onSession session: [UInt8],
                                       at time: Milliseconds) throws -> Bool {
        try database.execute("INSERT OR IGNORE INTO group_content_resends(content_id, member_key, session, resent_at) VALUES (?, ?, ?, ?)",
                             [contentId, member, session, time])
        return database.changes == 1
    }

    /// Remembers that the envelope with `digest`, sealed to our own device
    /// `deviceKey` (its key at the relay), carries `content` (encoded).
    public func recordOwnDeviceContent(digest: [UInt8], deviceKey: [UInt8], content: [UInt8], at time: Milliseconds) throws {
        try database.execute("""
            INSERT OR REPLACE INTO own_device_sent_contents(digest, device_key, content, sealed_at) VALUES (?, ?, ?, ?)
            """, [digest, deviceKey, content, time])
    }

    /// The encoded content an envelope we sealed to our own device
    /// `deviceKey` carried, unless it was sealed again on `session` (that
    /// device's session now) already: recorded as resent there as it is
    /// returned, so it goes again at most once per session (as
    /// `takeContentToResend` for a contact).
    public func takeOwnDeviceContentToResend(forEnvelope digest: [UInt8], deviceKey: [UInt8], onSession session: [UInt8],
                                             at time: Milliseconds) throws -> [UInt8]? {
        guard let content = try database.queryFirst("SELECT content FROM own_device_sent_contents WHERE digest = ? AND device_key = ?",
                                                    [digest, deviceKey], { try $0.get(0, as: [UInt8].self) }) else { return nil }
        try database.execute("""
            INSERT OR IGNORE INTO own_device_resends(device_key, content_digest, session, resent_at) VALUES (?, ?, ?, ?)
            """, [deviceKey, SHA256.hash(content), session, time])
        return database.changes == 1 ? content : nil
    }

    /// Forgets envelopes sealed before `time` (the relay has expired them),
    /// and resends made before it (the envelopes they sealed went too).
    public func forgetEnvelopes(sealedBefore time: Milliseconds) throws {
        try database.execute("DELETE FROM sent_envelopes WHERE sealed_at < ?", [time])
        try database.execute("DELETE FROM sent_contents WHERE sealed_at < ?", [time])
        try database.execute("DELETE FROM sent_group_contents WHERE sealed_at < ?", [time])
        try database.execute("DELETE FROM group_content_resends WHERE resent_at < ?", [time])
        try database.execute("DELETE FROM content_resends WHERE resent_at < ?", [time])
        try database.execute("DELETE FROM own_device_sent_contents WHERE sealed_at < ?", [time])
        try database.execute("DELETE FROM own_device_resends WHERE resent_at < ?", [time])
    }
}
