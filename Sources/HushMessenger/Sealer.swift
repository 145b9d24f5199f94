import HushCrypto
import HushProtocol
import HushStore

/// Seals and queues: the one place every part seals through. A contact's
/// content (texts, receipts, credentials, profiles, decryption errors), a
/// group's state or key for one member, a group message encrypted once for
/// all its members (`Sealer+Groups`), an attachment's pointer once its blob
/// is uploaded, and a message sealed again (`Sealer+Reseal`). Plaintext is
/// sealed before anything is written, so the outbox and the relay only ever
/// hold sealed envelopes; the envelope, its request and the advanced ratchet
/// state (or sender chain) are written together, in the caller's
/// transaction. Delivering what is queued is `Dispatcher`'s job.
final class Sealer {
    let dependencies: MessengerDependencies
    let ownChains: OwnSenderChains
    let largeGroupMessages: LargeGroupMessages
    let deviceFanOut: DeviceFanOut
    var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
        ownChains = OwnSenderChains(dependencies)
        largeGroupMessages = LargeGroupMessages(dependencies)
        deviceFanOut = DeviceFanOut(dependencies)
    }

    /// Seals `body` for `name` and queues it. When `recordAs` is given the
    /// content is also stored as an outgoing message shown in the history;
    /// receipts and profile updates are queued without one. Joins the
    /// caller's transaction (a sync stores many messages, one transaction
    /// each), so there is no savepoint per message.
    @discardableResult
    func seal(_ body: ContentBody, to name: String, recordAs text: String? = nil) throws -> MessageID {
        if body.isWrittenByTheUser {
            try dependencies.requireHomeInUse()
            try deviceFanOut.own.requireThisDeviceActive()
        }
        let contact = try sendableContact(named: name)
        let random = dependencies.random, now = dependencies.clock.now()
        // A message in history goes under the conversation's timer (§10.7).
        let timer = text == nil ? nil : try store.conversations.disappearingTimer(conversationId: dependencies.conversation(with: contact))
        let content = Content(id: MessageID.random(using: random), sentAt: UInt64(now), body: body.expiring(after: timer))
        try store.withinWrite { store in
            switch body {
            case .deliveryCredential, .profile, .deviceList: break
            default: try handOverFirst(to: contact)
            }
            let primary = try PrimarySession.load(for: contact, dependencies)
            let encoded = try content.encoded()
            let envelope = try primary.session.seal(encoded, using: random)
            let conversation = try dependencies.conversation(with: contact)
            let requestID = Hex.encode(random.bytes(16))
            var messageId: Int64?
            if let text {
                let message = NewMessage(conversationId: conversation, clientMessageId: content.id.description,
                                         direction: .outgoing, sender: dependencies.identity.address.description, body: text,
                                         contentType: body.contentTypeName, status: .pending, createdAt: now,
                                         replyTo: body.quotedMessage?.description, expiresAfter: content.body.expiresAfter)
                let queued = try store.sendQueue.queue(message, requestId: requestID, sealedPayload: envelope, at: now)
                try store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: queued, at: now)
                messageId = queued
                try dependencies.tellWritten(queued)
            } else {
                try store.outbox.enqueue(requestId: requestID, messageId: nil, conversationId: conversation,
                                         sealedPayload: envelope, at: now)
                if Self.isResentOnRequest(body) {
                    try store.resends.recordContent(digest: SHA256.hash(envelope), contactId: contact.id, content: encoded,
                                                    editOf: body.editedMessage?.bytes, at: now)
                }
            }
            try primary.queued(requestID, at: now)
            try deviceFanOut.fanOut(content, encoded: encoded, to: contact, conversation: conversation, messageId: messageId,
                                    primary: primary.device)
        }
        return content.id
    }

    /// Seals our delivery credential for `contact` unless they already hold
    /// the current one (docs/PROTOCOL.md §11). Every seal to a contact runs
    /// this first, so the side that starts a conversation (or a group member
    /// writing to a member the group introduced) hands its credential over
    /// in the same first exchange: the answer, and everything after it, is
    /// deposited with the credential instead of as a rate-limited first
    /// contact. Received envelopes run it too (`DeliveryCredentials`), so a
    /// changed credential reaches a contact with the next thing either side
    /// sends. Joins the caller's transaction.
    func handOverCredential(to contact: Contact) throws {
        guard contact.standing == .accepted, contact.verification != .changed,
              let own = try store.settings.value(SettingsRepository.Name.deliveryCredential).map({ try Hex.decode($0) }),
              try store.contacts.credentialSent(contactId: contact.id) != own else { return }
        try store.withinWrite { store in
            try store.contacts.setCredentialSent(own, contactId: contact.id)
            try seal(.deliveryCredential(own), to: contact.name)
        }
    }

    /// Seals our display name for an accepted contact before anything else
    /// goes to them, when they do not have it yet or it changed since
    /// (docs/PROTOCOL.md §10.4). A name the profile content cannot carry
    /// (empty, longer than 64 bytes), and a contact we hold no session with
    /// yet (a member a group introduced), get none now: the first seal to
    /// them does it. Returns whether it sealed one. Joins the caller's transaction.
    @discardableResult
    func handOverProfile(to contact: Contact) throws -> Bool {
        guard contact.standing == .accepted, contact.verification != .changed,
              let own = try store.settings.value(SettingsRepository.Name.sharedDisplayName),
              (1...ContentLimits.maxDisplayNameLength).contains(own.utf8.count),
              try store.contacts.profileSent(contactId: contact.id) != own,
              try PrimarySession.exists(for: contact, dependencies) else { return false }
        try store.withinWrite { store in
            try store.contacts.setProfileSent(own, contactId: contact.id)
            try seal(.profile(displayName: own), to: contact.name)
        }
        return true
    }

    /// Seals our account's device list (docs/PROTOCOL.md §20.11) for an
    /// accepted contact that does not hold the current one: an account
    /// with linked devices tells each contact which devices it has before
    /// anything else goes to them, and again whenever the list changes.
    /// A contact that holds an earlier list gets every list kept since, in
    /// order: each is checked against the one before (§20.3), and a list
    /// signed by a device that the contact's list does not name yet would
    /// be refused on its own (`signerNotActive`). A contact with none gets
    /// the current one, which it accepts as its first. An account that
    /// never linked a device has no list and sends none. Returns whether
    /// it sealed any. Joins the caller's transaction.
    @discardableResult
    func handOverDeviceList(to contact: Contact) throws -> Bool {
        guard let current = try store.deviceLists.latestCounter(),
              contact.standing == .accepted, contact.verification != .changed,
              case let sent = try store.contacts.deviceListSent(contactId: contact.id), sent != current,
              try PrimarySession.exists(for: contact, dependencies) else { return false }
        let lists = try sent.map { try store.deviceLists.lists(after: $0) } ?? store.deviceLists.list(counter: current).map { [(current, $0)] } ?? []
        guard !lists.isEmpty else { return false }
        try store.withinWrite { store in
            try store.contacts.setDeviceListSent(current, contactId: contact.id)
            for (_, list) in lists { try seal(.deviceList(list), to: contact.name) }
        }
        return true
    }

    /// What goes to a contact before any other content: our delivery
    /// credential, our display name and our device list, each only when
    /// they lack it.
    private func handOverFirst(to contact: Contact) throws {
        try handOverCredential(to: contact)
        try handOverProfile(to: contact)
        try handOverDeviceList(to: contact)
    }

    /// The contact named `name` if we may send it anything.
    func sendableContact(named name: String) throws -> Contact {
        let contact = try dependencies.contact(named: name)
        guard contact.verification != .changed else { throw MessengerError.identityChanged(name: name) }
        // Nothing at all goes to a stranger before the user accepts, nor to
        // someone blocked (docs/PROTOCOL.md §10.2).
        switch contact.standing {
        case .accepted: break
        case .requested: throw MessengerError.requestNotAccepted(name: contact.name)
        case .blocked: throw MessengerError.contactBlocked(name: contact.name)
        }
        return contact
    }

    /// The conversation a new message to `target` goes in: a group's, when
    /// `target` names one we are in, or the sendable contact's.
    func conversationForSending(to target: String) throws -> Int64 {
        if let conversation = try groupConversationForSending(to: target) { return conversation }
        return try dependencies.conversation(with: sendableContact(named: Self.contactName(target)))
    }

    /// Seals `body` as the content of a message already in history, for its
    /// conversation's contact or group (see the two below).
    func seal(_ body: ContentBody, forStored message: StoredMessage) throws {
        if let group = try store.groups.group(conversationId: message.conversationId) {
            try seal(body, forStored: message, in: group)
            return
        }
        guard let contact = try store.contacts.contact(conversationId: message.conversationId) else {
            throw MessengerError.unknownContact("conversation \(message.conversationId)")
        }
        try seal(body, forStored: message, contact: contact)
    }

    /// Seals `body` as the content of a message already in history (same
    /// client message id and time) and queues it for that message: an
    /// attachment's pointer, once its blob is uploaded. Joins the caller's transaction.
    private func seal(_ body: ContentBody, forStored message: StoredMessage, contact: Contact) throws {
        let random = dependencies.random, now = dependencies.clock.now()
        let content = Content(id: try MessageID(hex: message.clientMessageId), sentAt: UInt64(clamping: message.createdAt),
                              body: body.expiring(after: message.expiresAfter))
        try store.withinWrite { store in
            try handOverFirst(to: contact)
            let primary = try PrimarySession.load(for: contact, dependencies)
            let encoded = try content.encoded()
            let envelope = try primary.session.seal(encoded, using: random)
            let requestID = Hex.encode(random.bytes(16))
            try store.outbox.enqueue(requestId: requestID, messageId: message.id, conversationId: message.conversationId,
                                     sealedPayload: envelope, at: now)
            try store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: message.id, at: now)
            try primary.queued(requestID, at: now)
            // A file's pointer (or another content of a stored message) goes to every device too (§20.12).
            try deviceFanOut.fanOut(content, encoded: encoded, to: contact, conversation: message.conversationId, messageId: message.id,
                                    primary: primary.device)
        }
    }

    /// Seals content already encoded (a group's state or key for a member,
    /// queued by `GroupStateAdoption`, or a content sent again after a decryption error:
    /// `resend`) on the contact's session and queues it. Joins the caller's
    /// transaction.
    func seal(encodedContent: [UInt8], to contact: Contact, resend: Bool = false) throws {
        guard contact.standing == .accepted else { throw MessengerError.requestNotAccepted(name: contact.name) }
        guard contact.verification != .changed else { throw MessengerError.identityChanged(name: contact.name) }
        let random = dependencies.random, now = dependencies.clock.now()
        try store.withinWrite { store in
            try handOverFirst(to: contact)
            let primary = try PrimarySession.load(for: contact, dependencies)
            let envelope = try primary.session.seal(encodedContent, using: random)
            let conversation = try dependencies.conversation(with: contact)
            let requestID = Hex.encode(random.bytes(16))
            try store.outbox.enqueue(requestId: requestID, messageId: nil, conversationId: conversation, sealedPayload: envelope, at: now)
            try store.resends.recordContent(digest: SHA256.hash(envelope), contactId: contact.id, content: encodedContent,
                                            editOf: Content.editedMessageID(inEncoded: encodedContent), at: now)
            try primary.queued(requestID, at: now)
            // A group's state or key goes to each of the contact's devices too (§20.17); a resend went to the one that asked.
            if !resend, let content = try? Content(decoding: encodedContent) {
                try deviceFanOut.fanOut(content, encoded: encodedContent, to: contact, conversation: conversation, primary: primary.device)
            }
        }
    }

    /// Whether an envelope carrying `body` (and no message in history) is
    /// sealed again when its receiver reports it undecryptable (docs/PROTOCOL.md
    /// §10.1): everything whose loss changes what the receiver knows —
    /// receipts, credentials, profiles, group states, keys and leaves. A
    /// decryption error is not (answering one with another could go on for
    /// ever), nor is typing (it only ever travels as an ephemeral envelope).
    static func isResentOnRequest(_ body: ContentBody) -> Bool {
        switch body {
        case .decryptionError, .typingStarted, .typingStopped: false
        default: true
        }
    }
}

extension ContentBody {
    /// The message an edit edits, nil for anything else: its text, kept for
    /// resending the edit, goes when that message is erased.
    var editedMessage: MessageID? {
        if case let .edit(of: target, _) = self { return target }
        return nil
    }

    /// The `content_type` the store records for a message shown in history.
    var contentTypeName: String {
        switch self {
        case .text, .reply: return "text/plain"
        case .attachment: return "attachment"
        case .disappearingTimer: return DisappearingTimer.contentType
        case let .expiring(_, inner): return inner.contentTypeName
        default: return "control"
        }
    }

    /// This body wrapped with a timer of `seconds` (§10.7) when there is one
    /// and the body is a message that can expire; as it is otherwise.
    func expiring(after seconds: Int64?) -> ContentBody {
        guard let seconds, seconds > 0, Content.canExpire(typeByte) else { return self }
        return .expiring(after: UInt32(clamping: seconds), self)
    }

    /// The timer (seconds) an expiring body carries.
    var expiresAfter: Int64? {
        if case let .expiring(seconds, _) = self { return Int64(seconds) }
        return nil
    }

    /// The client message id a reply quotes (stored with the message).
    var quotedMessage: MessageID? {
        if case let .reply(quoted, _) = self { return quoted }
        if case let .expiring(_, inner) = self { return inner.quotedMessage }
        return nil
    }
}
