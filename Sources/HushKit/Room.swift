import HushMessenger
import HushStore

/// One conversation: its history, sending, files, read marks and typing;
/// for a group also its members. Get one from `HushAccount.room(_:)` or
/// `room(with:)`. A room holds only ids, so it stays valid across renames.
public struct Room: Sendable {
    /// The conversation.
    public let id: ConversationID
    let account: HushAccount

    private var messenger: Messenger { account.messenger }

    /// The conversation as the lobby lists it.
    public func summary() async throws(HushError) -> Conversation {
        try await account.guarded {
            guard let summary = try await messenger.conversation(id: id.rawValue) else {
                throw MessengerError.unknownConversation(id.rawValue)
            }
            return Conversation(summary)
        }
    }

    /// The contact of a one-to-one conversation; nil for a group.
    public func contact() async throws(HushError) -> ContactID? {
        try await account.guarded { try await messenger.contact(conversationID: id.rawValue).map { ContactID(rawValue: $0.id) } }
    }

    /// The group this conversation is, nil for a contact's.
    public func group() async throws(HushError) -> Group? {
        try await account.guarded {
            guard let summary = try await messenger.groupSummary(conversationID: id.rawValue) else { return nil }
            return try await account.group(summary)
        }
    }

    // MARK: History

    /// A page of history, oldest first: the newest `limit` messages (at most
    /// 10,000), or with `before` the `limit` messages just before that one.
    public func history(before: MessageID? = nil, limit: Int = 50) async throws(HushError) -> HistoryPage {
        try await account.guarded {
            let limit = Self.pageLimit(limit)
            // One more than asked tells whether older messages exist.
            let page = try await messenger.history(with: try await target(), before: before?.rawValue, limit: limit + 1)
            return HistoryPage(messages: try await account.decorated(Array(page.suffix(limit))), hasOlder: page.count > limit)
        }
    }

    /// The messages after `message`, oldest first, at most `limit` (and at
    /// most 10,000; for catching up after `.missed`, or reading forwards).
    public func messages(after message: MessageID, limit: Int = 50) async throws(HushError) -> [Message] {
        try await account.guarded {
            try await account.decorated(try await messenger.history(with: try await target(), after: message.rawValue,
                                                                    limit: Self.pageLimit(limit)))
        }
    }

    // MARK: Sending

    /// Seals `text`, stores it and queues it, then tries to hand it to the
    /// relay once: `send(_:idempotencyKey:)` without a key.
    public func send(_ text: String) async throws(HushError) -> Message {
        try await send(text, idempotencyKey: nil)
    }

    /// `sendReportingDelivery(_:idempotencyKey:)` without a key.
    public func sendReportingDelivery(_ text: String) async throws(HushError) -> SendReport {
        try await sendReportingDelivery(text, idempotencyKey: nil)
    }

    /// `reply(to:text:idempotencyKey:)` without a key.
    public func reply(to message: MessageID, text: String) async throws(HushError) -> SendReport {
        try await reply(to: message, text: text, idempotencyKey: nil)
    }

    /// Seals `text`, stores it and queues it, then tries to hand it to the
    /// relay once. The message returned says how that went: `sent` when the
    /// relay has it, `pending` when it is queued (retried with backoff by
    /// `startLive()` or the next `sync()`), `failed` when the relay refused it.
    /// Later changes arrive as `.statusChanged` events.
    ///
    /// `idempotencyKey` (1 to 128 bytes, unique per account) makes a retry
    /// safe: the key is stored with the message, in the same transaction,
    /// and a later send with the same key (in any room) sends nothing and
    /// returns the message the first one sent, as it is now. A key out of
    /// bounds is `.invalidInput`, and nothing is sent.
    public func send(_ text: String, idempotencyKey: String?) async throws(HushError) -> Message {
        try await sendReportingDelivery(text, idempotencyKey: idempotencyKey).message
    }

    /// `send(_:idempotencyKey:)`, also telling how the relay answered when
    /// the message is not there yet: refused (for now, as when it limits the
    /// rate, or for good) or not reached, and the reason the queue recorded.
    public func sendReportingDelivery(_ text: String, idempotencyKey: String?) async throws(HushError) -> SendReport {
        try await account.guardedWrite {
            try await report(try await messenger.sendReportingDelivery(text: text, to: try await target(), idempotencyKey: idempotencyKey))
        }
    }

    /// Sends `text` as a reply quoting `message` (a message of this room),
    /// as `sendReportingDelivery(_:)` sends a text. The reply's `replyTo`
    /// names the quoted message; the other side sees the quote when it has
    /// that message too. A message of another room, or none, is `.notFound`
    /// and nothing is sent. `idempotencyKey` is as for `send(_:idempotencyKey:)`.
    public func reply(to message: MessageID, text: String, idempotencyKey: String?) async throws(HushError) -> SendReport {
        try await account.guardedWrite {
            try await requireHere(message)
            return try await report(try await messenger.reply(toMessage: message.rawValue, text: text, idempotencyKey: idempotencyKey))
        }
    }

    /// Sets the account's reaction to `message` (a message of this room) to
    /// `emoji`, replacing the one before, or takes it away (`nil`); the
    /// room's other members see it, one reaction per person per message.
    /// An emoji must be one character (grapheme cluster) of at most 32
    /// bytes of UTF-8 with no control characters (`.invalidInput`); a
    /// message of another room, or none, is `.notFound`. Either way nothing
    /// is sent. It is queued like a message and handed to the relay once.
    public func react(to message: MessageID, with emoji: String?) async throws(HushError) {
        try await account.guardedWrite {
            try await requireHere(message)
            try await messenger.react(toMessage: message.rawValue, emoji: emoji)
        }
    }

    /// Replaces the text of `message` (the account's own text or reply in
    /// this room) with `text`, here and for the room's other members, and
    /// returns the message as it now stands (`editedAt` set). The versions
    /// before are kept (`editHistory(of:)`), and search finds the new text,
    /// not the old. Refused with `.invalidInput`, sending nothing: someone
    /// else's message, a file, more than 48 hours after it was sent
    /// (`MessageVersion.editWindow`), a 21st edit (`MessageVersion.maxEdits`),
    /// an empty or too long text; a message of another room, or none, is
    /// `.notFound`. The edit is queued like a message and handed to the relay once.
    public func edit(_ message: MessageID, text: String) async throws(HushError) -> Message {
        try await account.guardedWrite {
            try await requireHere(message)
            return try await account.decorated([try await messenger.edit(message: message.rawValue, text: text)])[0]
        }
    }

    /// Every version of `message` (a message of this room), oldest first:
    /// the original, then each edit its author made, with their times; empty
    /// when it was never edited. A message of another room, or none, is `.notFound`.
    public func editHistory(of message: MessageID) async throws(HushError) -> [MessageVersion] {
        try await account.guarded {
            try await requireHere(message)
            return try await messenger.versions(ofMessage: message.rawValue).map { version in
                MessageVersion(text: version.body, writtenAt: version.sentAt, isOriginal: version.editId == nil)
            }
        }
    }

    /// Deletes `message` (a message of this room): on this device only, or,
    /// `forEveryone`, on every device of the room too (only the account's own
    /// message, within 48 hours of sending it: another's, or an older one,
    /// is `.invalidInput` and nothing changes). Its text, file and search
    /// entry go; history shows it as deleted (`Message.isDeleted`). A message
    /// of another room, or none, is `.notFound`.
    public func delete(_ message: MessageID, forEveryone: Bool) async throws(HushError) {
        try await account.guarded {
            try await requireHere(message)
            try await messenger.delete(message: message.rawValue, forEveryone: forEveryone)
        }
    }

    /// Sets the room's disappearing-message timer: messages sent from now
    /// on (by anyone in the room) disappear `seconds` after they are read;
    /// 0 turns it off. Everyone in the room sees the change in history (a
    /// `.timerChange` message). `DisappearingTimer.choices` are the usual
    /// values; at most 4 weeks (`.invalidInput`).
    @discardableResult
    public func setDisappearingTimer(_ seconds: UInt32) async throws(HushError) -> Message {
        try await account.guardedWrite {
            Message(try await messenger.setDisappearingTimer(seconds, for: try await target()))
        }
    }

    /// The room's disappearing-message timer in seconds; nil when off.
    public var disappearingTimer: Int64? {
        get async throws(HushError) {
            try await account.guarded { try await messenger.disappearingTimer(conversationID: id.rawValue) }
        }
    }

    /// The report of a message just sent: why the relay does not have it, when it does not.
    private func report(_ sent: (message: StoredMessage, refusedByRelay: Bool)) async throws -> SendReport {
        let (stored, refused) = sent
        let message = try await account.decorated([stored])[0]
        guard message.status == .pending || message.status == .failed else {
            return SendReport(message: message, refusedByRelay: refused, reason: nil)
        }
        let reason = try await messenger.outbox().first(where: { $0.messageId == stored.id })?.lastError
        return SendReport(message: message, refusedByRelay: refused, reason: reason ?? "no answer")
    }

    /// Refuses a message that is not stored in this room.
    private func requireHere(_ message: MessageID) async throws {
        guard let stored = try await messenger.message(id: message.rawValue), stored.conversationId == id.rawValue else {
            throw HushError(.notFound, reason: "no message with id \(message) in this conversation",
                            suggestion: "message ids are the ones this conversation's history lists", subject: .message(message))
        }
    }

    /// The messages of this conversation that were sealed again and resent
    /// because the contact could not decrypt them, by `Message.clientMessageID`.
    public func resentMessages() async throws(HushError) -> Set<String> {
        try await account.guarded { Set(try await messenger.resentMessages(in: try await target())) }
    }

    /// Sends the file at `path`: it is encrypted with a fresh key, uploaded,
    /// and its key sealed in the message. `progress` (and event subscribers,
    /// as `.transferProgress`) learn how far it came.
    public func sendFile(at path: String, progress: (@Sendable (TransferProgress) -> Void)? = nil)
        async throws(HushError) -> (message: Message, attachment: Attachment) {
        try await account.guardedWrite {
            let (message, attachment) = try await messenger.sendFile(at: path, to: try await target(),
                                                                     progress: account.progressReporter(progress))
            return (Message(message), Attachment(attachment, on: messenger))
        }
    }

    /// Marks received messages read and sends the read receipts owed (none
    /// to a stranger whose request waits): every one, or with `upTo` those
    /// up to that message, so that what arrived after what the user saw
    /// stays unread.
    public func markRead(upTo message: MessageID? = nil) async throws(HushError) {
        try await account.guarded { _ = try await messenger.markRead(contact: try await target(), upTo: message?.rawValue) }
    }

    /// Tells the contact the user started or stopped typing, over the live
    /// connection only (typing is never queued). Groups have no typing.
    public func setTyping(_ typing: Bool) async throws(HushError) {
        try await account.guarded {
            guard case let .contact(name) = try await messenger.target(conversationID: id.rawValue) else {
                throw HushError(.invalidInput, reason: "groups have no typing indicators")
            }
            try await messenger.sendTyping(typing, to: name)
        }
    }

    /// The files sent and received in this conversation, oldest first.
    public func attachments() async throws(HushError) -> [Attachment] {
        try await account.guarded {
            try await messenger.attachmentList().filter { $0.attachment.conversationId == id.rawValue }.map { Attachment($0.attachment, on: messenger) }
        }
    }

    // MARK: Groups

    /// Adds accepted contacts to the group (admins only): the group is
    /// re-keyed and the new members invited.
    public func addMembers(_ contacts: [ContactID]) async throws(HushError) -> Group {
        try await changeGroup { name in try await messenger.addToGroup(name, members: try await account.contactNames(contacts)) }
    }

    /// Removes a member (admins only): the group is re-keyed without them.
    public func removeMember(_ contact: ContactID) async throws(HushError) -> Group {
        try await changeGroup { name in
            try await messenger.removeFromGroup(name, member: try await messenger.contact(id: contact.rawValue).name)
        }
    }

    /// Makes a member an admin (admins only).
    public func makeAdmin(_ contact: ContactID) async throws(HushError) -> Group {
        try await changeGroup { name in
            try await messenger.promoteInGroup(name, member: try await messenger.contact(id: contact.rawValue).name)
        }
    }

    /// Renames the group for every member (admins only).
    public func rename(to newName: String) async throws(HushError) -> Group {
        try await changeGroup { name in try await messenger.renameGroup(name, to: newName) }
    }

    /// Leaves the group: the other members are told, and nothing more arrives from it.
    public func leave() async throws(HushError) {
        try await account.guarded { try await messenger.leaveGroup(try await groupName()) }
    }

    /// How many members a group message reached and how many read it.
    public func receipts(of message: MessageID) async throws(HushError) -> GroupReceipts {
        try await account.guarded {
            let (members, delivered, read) = try await messenger.groupReceipts(messageId: message.rawValue)
            return GroupReceipts(members: members, delivered: delivered, read: read)
        }
    }

    /// A page holds 1 to 10,000 messages, whatever was asked.
    private static func pageLimit(_ asked: Int) -> Int { min(max(1, asked), 10_000) }

    // MARK: Names underneath

    /// The name the messenger's operations take, fetched anew each time so
    /// that a rename between two calls cannot send to the wrong place.
    private func target() async throws -> String {
        try await messenger.target(conversationID: id.rawValue).qualifiedName
    }

    private func groupName() async throws -> String {
        guard case let .group(name) = try await messenger.target(conversationID: id.rawValue) else {
            throw HushError(.group, reason: "this conversation is not a group")
        }
        return name
    }

    private func changeGroup(_ change: (String) async throws -> GroupSummary) async throws(HushError) -> Group {
        try await account.guarded { try await account.group(try await change(try await groupName())) }
    }
}

/// What sending a message did: the message as stored (its status says
/// whether the relay has it) and, when it does not, why.
public struct SendReport: Sendable, Equatable {
    /// The message as stored.
    public let message: Message
    /// Whether the relay answered with a refusal (the message stays queued
    /// when the refusal is for now, and is `failed` when it is for good)
    /// rather than not being reached.
    public let refusedByRelay: Bool
    /// Why the relay does not have it yet; nil once it does.
    public let reason: String?
}

/// How far a group message got: of `members`, how many received and read it.
public struct GroupReceipts: Sendable, Equatable {
    /// Members the message went to.
    public let members: Int
    /// Members whose devices received it.
    public let delivered: Int
    /// Members who read it.
    public let read: Int
}
