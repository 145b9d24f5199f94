import HushCrypto
import HushProtocol
import HushStore

/// Seal-and-queue and flush: everything that leaves this device goes
/// through here, and `Dispatcher` delivers what is queued. Plaintext is
/// sealed before anything is written, so the outbox and the relay only ever
/// hold sealed envelopes; the sealed envelope, its request and the advanced
/// ratchet state are written together.
final class Outbox {
    let dependencies: MessengerDependencies
    private let dispatcher: Dispatcher
    /// Set by the messenger after both exist (each needs the other).
    weak var uploads: Attachments?
    /// Set likewise: what groups queue for members is sealed before each flush posts.
    weak var groups: Groups?
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, dispatcher: Dispatcher) {
        self.dependencies = dependencies
        self.dispatcher = dispatcher
    }

    /// Seals `body` for `name` and queues it. When `recordAs` is given the
    /// content is also stored as an outgoing message shown in the history;
    /// receipts and profile updates are queued without one. Joins the
    /// caller's transaction (a sync seals a receipt per message it stores),
    /// so there is no savepoint per message.
    @discardableResult
    func seal(_ body: ContentBody, to name: String, recordAs text: String? = nil) throws -> MessageID {
        let contact = try sendableContact(named: name)
        let random = dependencies.random, now = dependencies.clock.now()
        let content = Content(id: MessageID.random(using: random), sentAt: UInt64(now), body: body)
        try store.withinWrite { store in
            if case .deliveryCredential = body {} else { try handOverCredential(to: contact) }
            let session = try dependencies.loadSession(contactId: contact.id)
            let envelope = try session.seal(try content.encoded(), using: random)
            let conversation = try dependencies.conversation(with: contact)
            let requestID = Hex.encode(random.bytes(16))
            if let text {
                let message = NewMessage(conversationId: conversation, clientMessageId: content.id.description,
                                         direction: .outgoing, sender: dependencies.identity.address.description, body: text,
                                         contentType: content.body.contentTypeName, status: .pending, createdAt: now)
                let messageId = try store.sendQueue.queue(message, requestId: requestID, sealedPayload: envelope, at: now)
                try store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: messageId, at: now)
            } else {
                try store.outbox.enqueue(requestId: requestID, messageId: nil, conversationId: conversation,
                                         sealedPayload: envelope, at: now)
                if Self.isResentOnRequest(body) {
                    try store.resends.recordContent(digest: SHA256.hash(envelope), contactId: contact.id, content: try content.encoded(),
                                                    resent: false, at: now)
                }
            }
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
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
        if let groups, let conversation = try groups.conversationForSending(to: target) { return conversation }
        return try dependencies.conversation(with: sendableContact(named: Groups.contactName(target)))
    }

    /// Seals `body` as the content of a message already in history, for its
    /// conversation's contact or group (see the two below).
    func seal(_ body: ContentBody, forStored message: StoredMessage) throws {
        if let groups, try store.groups.group(conversationId: message.conversationId) != nil {
            try groups.seal(body, forStored: message)
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
    func seal(_ body: ContentBody, forStored message: StoredMessage, contact: Contact) throws {
        let random = dependencies.random, now = dependencies.clock.now()
        let content = Content(id: try MessageID(hex: message.clientMessageId), sentAt: UInt64(clamping: message.createdAt), body: body)
        try store.withinWrite { store in
            try handOverCredential(to: contact)
            let session = try dependencies.loadSession(contactId: contact.id)
            let envelope = try session.seal(try content.encoded(), using: random)
            try store.outbox.enqueue(requestId: Hex.encode(random.bytes(16)), messageId: message.id, conversationId: message.conversationId,
                                     sealedPayload: envelope, at: now)
            try store.resends.recordEnvelope(digest: SHA256.hash(envelope), messageId: message.id, at: now)
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
        }
    }

    /// Seals content already encoded (a group's state or key for a member,
    /// queued by `Groups`, or a content sent again after a decryption error:
    /// `resend`) on the contact's session and queues it. Joins the caller's
    /// transaction.
    func seal(encodedContent: [UInt8], to contact: Contact, resend: Bool = false) throws {
        guard contact.standing == .accepted else { throw MessengerError.requestNotAccepted(name: contact.name) }
        guard contact.verification != .changed else { throw MessengerError.identityChanged(name: contact.name) }
        let random = dependencies.random, now = dependencies.clock.now()
        try store.withinWrite { store in
            try handOverCredential(to: contact)
            let session = try dependencies.loadSession(contactId: contact.id)
            let envelope = try session.seal(encodedContent, using: random)
            let conversation = try dependencies.conversation(with: contact)
            try store.outbox.enqueue(requestId: Hex.encode(random.bytes(16)), messageId: nil, conversationId: conversation,
                                     sealedPayload: envelope, at: now)
            try store.resends.recordContent(digest: SHA256.hash(envelope), contactId: contact.id, content: encodedContent,
                                            resent: resend, at: now)
            try store.sessions.save(state: session.serialized(), contactId: contact.id, at: now)
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

    /// Posts every due outbox request once (`Dispatcher`), with the work that
    /// queues more first: group deliveries waiting for a member's session,
    /// and uploads whose pointer message is queued once the relay holds the file.
    @discardableResult
    func flush(isolation: isolated (any Actor)? = #isolation) async -> OutboxReport {
        var report = OutboxReport()
        await groups?.deliverPending()
        // What is queued goes first, so that a text never waits behind a
        // file's upload (which may be long, or failing); then the uploads that
        // are due, each of which queues its pointer message; then those.
        await dispatcher.dispatchDue(into: &report)
        if let uploads {
            await uploads.uploadPending()
            await dispatcher.dispatchDue(into: &report)
        }
        let pendingAt = (try? store.outbox.items(status: .pending).map(\.nextAttemptAt).min()) ?? nil
        let uploadAt = (try? store.attachments.nextUploadAttempt()) ?? nil
        report.nextAttemptAt = [pendingAt, uploadAt].compactMap { $0 }.min()
        return report
    }

    /// Makes failed and pending requests (those whose id starts with
    /// `requestID`, or all) due now, for the user's `hush retry`: failed ones
    /// become pending again, and pending ones waiting out their backoff are
    /// due at once; after an outage the user should not have to wait for the
    /// jittered schedule, which grows to minutes. A text message is sealed
    /// again on the current session first: the conversation may have moved on
    /// while it waited. Joins the caller's transaction.
    func makeDueNow(requestID: String?) throws {
        let now = dependencies.clock.now()
        let waiting = try store.outbox.items(status: .failed) + store.outbox.items(status: .pending)
        let chosen = requestID.map { id in waiting.filter { $0.requestId.hasPrefix(id) } } ?? waiting
        if let requestID, chosen.isEmpty { throw MessengerError.unknownMessage(requestID) }
        try store.withinWrite { store in
            for item in chosen where try !resealForRetry(item) {
                try store.sendQueue.retry(requestId: item.requestId, at: now)
            }
        }
    }

    /// Pending and failed requests, for `hush outbox`.
    func waiting() throws -> [OutboxItem] {
        try store.outbox.items(status: .pending) + store.outbox.items(status: .failed)
    }
}

extension ContentBody {
    /// The `content_type` the store records for a message shown in history.
    var contentTypeName: String {
        switch self {
        case .text: return "text/plain"
        case .attachment: return "attachment"
        default: return "control"
        }
    }
}
