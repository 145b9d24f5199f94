import HushStore

/// Lookups by the store's ids, for front ends that hold ids rather than the
/// names a person typed (HushKit). Each turns an id into the exact target
/// the name-based operations take (`contact:NAME`, `group:NAME`), so a name
/// shared by a contact and a group never makes an id ambiguous.
extension Messenger {
    /// The contact with store id `id`, or `unknownContact`.
    public func contact(id: Int64) throws -> Contact {
        guard let contact = try store.contacts.contact(id: id) else { throw MessengerError.unknownContact("#\(id)") }
        return contact
    }

    /// The conversation with contact `id` (created when there is none yet).
    public func conversationID(contactID id: Int64) throws -> Int64 {
        let contact = try contact(id: id)
        return try store.write { store in try store.conversations.conversation(forContact: contact.id, title: contact.name, at: clock.now()) }
    }

    /// What conversation `id` is: a contact's or a group's, by its current name.
    public func target(conversationID id: Int64) throws -> ConversationTarget {
        if let group = try store.groups.group(conversationId: id) { return .group(group.name) }
        if let contact = try store.contacts.contact(conversationId: id) { return .contact(contact.name) }
        throw MessengerError.unknownConversation(id)
    }

    /// The conversation of the group named `name`, if there is one.
    public func groupConversationID(_ name: String) throws -> Int64? {
        try store.groups.group(named: name)?.conversationId
    }

    /// The contact a one-to-one conversation is with; nil for a group's.
    public func contact(conversationID id: Int64) throws -> Contact? {
        try store.contacts.contact(conversationId: id)
    }

    /// The group conversation `id` is, or nil when it is a contact's.
    public func groupSummary(conversationID id: Int64) throws -> GroupSummary? {
        guard let group = try store.groups.group(conversationId: id) else { return nil }
        return try groupSummary(group.name)
    }

    /// The message with store id `id`, if it is still stored.
    public func message(id: Int64) throws -> StoredMessage? {
        try store.messages.message(id: id)
    }

    /// The message with store id `id` and what its history entry shows with
    /// it (`decorations(of:)`), read in one step: an event's reader gets both
    /// without queueing twice behind the messenger's other work.
    public func decoratedMessage(id: Int64) throws -> (message: StoredMessage, decorations: MessageDecorations)? {
        guard let message = try store.messages.message(id: id) else { return nil }
        return (message, try decorations(of: [message]))
    }

    /// The attachment a message carries, if it carries one.
    public func attachment(messageID id: Int64) throws -> StoredAttachment? {
        try store.attachments.attachment(messageId: id)
    }

    /// The attachment with store id `id`, if it is still stored.
    public func attachment(id: Int64) throws -> StoredAttachment? {
        try store.attachments.attachment(id: id)
    }

    /// Whether the data directory holds attachment `id`'s whole encrypted
    /// file: a received file downloaded and checked, or a sent file's own
    /// copy (kept from its sealing on). Such a file is decrypted from here,
    /// never downloaded, and goes into backups and exports.
    public nonisolated func holdsFile(attachmentID id: Int64) -> Bool {
        attachmentFiles?.hasBlob(id) ?? false
    }
}
