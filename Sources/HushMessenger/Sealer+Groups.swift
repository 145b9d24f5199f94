import HushCrypto
import HushProtocol
import HushStore

/// Group messages (docs/PROTOCOL.md §18.3): the content encrypted once with
/// our sender chain for the group's current state, sealed as one group
/// envelope, and queued as one fan-out request to every other member, each
/// with its own receipt.
extension Sealer {
    /// The group conversation a message to `target` goes in, or nil when
    /// `target` means a contact (same rules as `Messenger.resolve`).
    func groupConversationForSending(to target: String) throws -> Int64? {
        let name: String
        if target.hasPrefix("group:") {
            name = String(target.dropFirst(6))
        } else if target.hasPrefix("contact:") {
            return nil
        } else {
            guard try store.groups.group(named: target) != nil else { return nil }
            if try store.contacts.contact(named: target) != nil { throw MessengerError.ambiguousName(target) }
            name = target
        }
        let group = try self.group(named: name)
        if group.isLarge {
            try group.requireMember()
        } else {
            _ = try sendable(group)
        }
        return group.conversationId
    }

    /// A contact's name as written on the command line (`contact:NAME` or NAME).
    static func contactName(_ target: String) -> String {
        target.hasPrefix("contact:") ? String(target.dropFirst(8)) : target
    }

    /// Encrypts `body` once with our chain for the group's current state,
    /// seals it as a group envelope and queues it for every other member
    /// (one fan-out request). Blocked while a member's identity key changed.
    @discardableResult
    func seal(_ body: ContentBody, toGroup name: String, recordAs text: String) throws -> MessageID {
        try sealNew(body, toGroup: name, recordAs: text).id
    }

    /// Encrypts `body` (a reaction, an edit) for the group's current members
    /// and queues it as one fan-out request with no message in history.
    /// Returns the content's id.
    @discardableResult
    func sealControl(_ body: ContentBody, toGroup name: String) throws -> MessageID {
        try sealNew(body, toGroup: name, recordAs: nil).id
    }

    /// A new content for the group, queued as one fan-out request: with
    /// `text`, as a message in history (with a "sent" receipt per member),
    /// without, as control content that history does not show.
    private func sealNew(_ body: ContentBody, toGroup name: String, recordAs text: String?) throws -> Content {
        if body.isWrittenByTheUser {
            try dependencies.requireHomeInUse()
            try deviceFanOut.own.requireThisDeviceActive()
        }
        let group = try self.group(named: name)
        let now = dependencies.clock.now()
        // A message in history goes under the conversation's timer (§10.7).
        let timer = text == nil ? nil : try store.conversations.disappearingTimer(conversationId: group.conversationId)
        let content = Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(now), body: body.expiring(after: timer))
        try store.withinWrite { store in
            let (envelope, recipients) = try encrypt(content, in: group)
            let requestID = Hex.encode(dependencies.random.bytes(16))
            guard let text else {
                try store.outbox.enqueue(requestId: requestID, messageId: nil, conversationId: group.conversationId,
                                         sealedPayload: envelope, at: now)
                try store.groups.addRecipients(try mailboxes(of: recipients, in: group), requestId: requestID)
                // Sealed again for a member who reports it undecryptable (§10.1).
                try store.resends.recordGroupContent(digest: SHA256.hash(envelope), conversationId: group.conversationId,
                                                     contentId: content.id.bytes, content: try content.encoded(),
                                                     editOf: body.editedMessage?.bytes, at: now)
                return
            }
            let stored = NewMessage(conversationId: group.conversationId, clientMessageId: content.id.description, direction: .outgoing,
                                    sender: dependencies.identity.address.description, body: text,
                                    contentType: body.contentTypeName, status: .pending, createdAt: now,
                                    replyTo: body.quotedMessage?.description, expiresAfter: content.body.expiresAfter)
            let messageId = try store.sendQueue.queue(stored, requestId: requestID, sealedPayload: envelope, at: now)
            try record(recipients, requestID: requestID, messageId: messageId, envelope: envelope, in: group)
            try dependencies.tellWritten(messageId)
        }
        return content
    }

    /// Seals `body` as the content of a group message already in history
    /// (an attachment's pointer once its blob is uploaded) and queues it.
    func seal(_ body: ContentBody, forStored message: StoredMessage, in group: StoredGroup) throws {
        let content = Content(id: try MessageID(bytes: Hex.decode(message.clientMessageId)), sentAt: UInt64(clamping: message.createdAt),
                              body: body.expiring(after: message.expiresAfter))
        try store.withinWrite { store in
            let (envelope, recipients) = try encrypt(content, in: group)
            let requestID = Hex.encode(dependencies.random.bytes(16))
            try store.outbox.enqueue(requestId: requestID, messageId: message.id, conversationId: group.conversationId,
                                     sealedPayload: envelope, at: dependencies.clock.now())
            try record(recipients, requestID: requestID, messageId: message.id, envelope: envelope, in: group)
        }
    }

    /// Seals our group message `message` again, the same content (id and
    /// time), as a new group message under our chain for the group's current
    /// state, and queues it for `member` alone, to `mailbox` (its account
    /// key, or the device of it that asked, §20.12): a member who could not
    /// open the first because the key was gone (a restored account, given
    /// our chain at a later point, docs/PROTOCOL.md §10.1, §19.4). The
    /// others read the original, and skip this iteration of the chain.
    /// False when the message cannot be sealed again (`contentAgain`).
    func reseal(_ message: StoredMessage, in group: StoredGroup, for member: IdentityKey, mailbox: IdentityKey) throws -> Bool {
        guard let content = try contentAgain(of: message) else { return false }
        let now = dependencies.clock.now()
        try store.withinWrite { store in
            let (envelope, _) = try encrypt(content, in: group, onlyTo: member)
            let requestID = Hex.encode(dependencies.random.bytes(16))
            try store.outbox.enqueue(requestId: requestID, messageId: message.id, conversationId: group.conversationId,
                                     sealedPayload: envelope, at: now)
            try store.groups.addRecipients([mailbox.rawRepresentation], requestId: requestID)
            try store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: message.id, at: now)
        }
        return true
    }

    /// Seals a group content that history does not show (a reaction, an
    /// edit, a deletion: `encoded`, the same id and time) again under our
    /// chain for the group's current state, for `member` alone, to
    /// `mailbox` (as `reseal`): a member who could not open the first
    /// (docs/PROTOCOL.md §10.1, §19.4).
    func resealControl(_ encoded: [UInt8], in group: StoredGroup, for member: IdentityKey, mailbox: IdentityKey) throws {
        let content = try Content(decoding: encoded)
        let now = dependencies.clock.now()
        try store.withinWrite { store in
            let (envelope, _) = try encrypt(content, in: group, onlyTo: member)
            let requestID = Hex.encode(dependencies.random.bytes(16))
            try store.outbox.enqueue(requestId: requestID, messageId: nil, conversationId: group.conversationId,
                                     sealedPayload: envelope, at: now)
            try store.groups.addRecipients([mailbox.rawRepresentation], requestId: requestID)
            try store.resends.recordGroupContent(digest: SHA256.hash(envelope), conversationId: group.conversationId,
                                                 contentId: content.id.bytes, content: encoded, editOf: content.body.editedMessage?.bytes, at: now)
        }
    }

    private func group(named name: String) throws -> StoredGroup {
        guard let group = try store.groups.group(named: name) else { throw MessengerError.unknownGroup(name) }
        return group
    }

    /// The state to send under and the members to send to (every other
    /// member, or `member` alone for a resend); refuses a group we are not
    /// in, one we are alone in, and one where a recipient's key changed.
    /// Only the recipients count: a resend to one member is not held back by
    /// another member's changed key, since nothing reaches that member's new
    /// key (the resend would otherwise be lost: it is answered once).
    private func sendable(_ group: StoredGroup, onlyTo member: IdentityKey? = nil) throws -> (state: GroupState, recipients: [IdentityKey]) {
        try group.requireMember()
        let current = try group.currentState()
        let others = current.members.map(\.identityKey).filter { $0 != dependencies.identity.publicKey }
        let recipients = member.map { member in others.filter { $0 == member } } ?? others
        guard !recipients.isEmpty else {
            throw MessengerError.aloneInGroup(group: group.name)
        }
        for key in recipients {
            if let contact = try store.contacts.contact(identityKey: key.rawRepresentation), contact.verification == .changed {
                throw MessengerError.memberIdentityChanged(group: group.name, member: contact.name)
            }
        }
        return (current, recipients)
    }

    /// The content encrypted once with our chain for the group's current
    /// state, as a group envelope, and the members it goes to (`member`
    /// alone when given).
    private func encrypt(_ content: Content, in group: StoredGroup,
                         onlyTo member: IdentityKey? = nil) throws -> (envelope: [UInt8], recipients: [IdentityKey]) {
        if group.isLarge {
            // A large group's message goes to every member or none: no
            // receipt, so no member reports one missing (§18.4).
            guard member == nil else { throw MessengerError.groupRefused("a large group's message is not sealed again for one member") }
            return try largeGroupMessages.encrypt(content, in: group)
        }
        let (current, recipients) = try sendable(group, onlyTo: member)
        let chain = try ownChains.chain(for: current, in: group)
        let message = try chain.encrypt(try content.encoded())
        let envelope = try GroupEnvelope.seal(message, key: current.envelopeKey(), using: dependencies.random)
        try ownChains.save(chain, for: current, in: group)
        return (envelope, recipients)
    }

    /// The mailboxes a group envelope for `members` goes to (§20.17): each
    /// member's account key (unless it is retired, §20.14), the active
    /// devices of the list we hold of each, and our own other devices, those
    /// we hold a session with (a device key without one, such as a first
    /// device's, has no mailbox at the relay). A large group's stay the
    /// members' account keys (its states stay with them), so a member whose
    /// account key is retired receives a large group's messages nowhere.
    func mailboxes(of members: [IdentityKey], in group: StoredGroup) throws -> [[UInt8]] {
        var mailboxes: [[UInt8]] = []
        for member in members {
            guard let contact = try store.contacts.contact(identityKey: member.rawRepresentation) else {
                mailboxes.append(member.rawRepresentation)
                continue
            }
            if try !dependencies.accountKeyRetired(contact) { mailboxes.append(member.rawRepresentation) }
            guard !group.isLarge else { continue }
            mailboxes += try deviceFanOut.activeDevices(of: contact).filter { device in
                try (store.deviceSessions.load(contactId: contact.id, deviceKey: device)?.count ?? 0) > 0
            }
        }
        if !group.isLarge {
            mailboxes += try deviceFanOut.own.peers().filter { try (store.ownDeviceSessions.load(deviceKey: $0)?.count ?? 0) > 0 }
        }
        var seen: Set<[UInt8]> = []
        return mailboxes.filter { seen.insert($0).inserted }
    }

    /// The members a queued group message goes to, each with its own
    /// receipt, and the envelope kept for a member who reports it
    /// undecryptable (§10.1). A large group's has neither: no receipts, no
    /// resends (§18.4); it shows as sent once the relay took every part.
    private func record(_ recipients: [IdentityKey], requestID: String, messageId: Int64, envelope: [UInt8], in group: StoredGroup) throws {
        try store.groups.addRecipients(try mailboxes(of: recipients, in: group), requestId: requestID)
        guard !group.isLarge else { return }
        for key in recipients { try store.groups.recordReceipt(messageId: messageId, memberKey: key.rawRepresentation, status: "sent") }
        try store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: messageId, at: dependencies.clock.now())
    }
}
