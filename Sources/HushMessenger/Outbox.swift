import HushCrypto
import HushProtocol
import HushStore

/// Seal-and-queue, flush, retry and backoff: everything that leaves this
/// device goes through here. Plaintext is sealed before anything is written,
/// so the outbox and the relay only ever hold sealed envelopes; the sealed
/// envelope, its request and the advanced ratchet state are written together.
final class Outbox {
    let dependencies: MessengerDependencies
    private let backoff: BackoffPolicy
    /// Set by the messenger after both exist (each needs the other).
    weak var uploads: Attachments?
    /// Set likewise: what groups queue for members is sealed before each flush posts.
    weak var groups: Groups?
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, backoff: BackoffPolicy) {
        self.dependencies = dependencies
        self.backoff = backoff
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
            switch body {
            case .deliveryCredential, .profile: break
            default:
                try handOverCredential(to: contact)
                try handOverProfile(to: contact)
            }
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

    /// Seals our display name for an accepted contact before anything else
    /// goes to them, when they do not have it yet or it changed since
    /// (docs/PROTOCOL.md §10.4). A name the profile content cannot carry
    /// (empty, longer than 64 bytes) is not sent.
    func handOverProfile(to contact: Contact) throws {
        guard contact.standing == .accepted, contact.verification != .changed,
              let own = try store.settings.value(SettingsRepository.Name.sharedDisplayName),
              (1...ContentLimits.maxDisplayNameLength).contains(own.utf8.count),
              try store.contacts.profileSent(contactId: contact.id) != own else { return }
        try store.withinWrite { store in
            try store.contacts.setProfileSent(own, contactId: contact.id)
            try seal(.profile(displayName: own), to: contact.name)
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

    /// Posts every due outbox request once. On 201 the request becomes a
    /// sent message carrying the relay's id; failures follow `BackoffPolicy`.
    @discardableResult
    func flush(isolation: isolated (any Actor)? = #isolation) async -> OutboxReport {
        var report = OutboxReport()
        await groups?.deliverPending()
        // What is queued goes first, so that a text never waits behind a
        // file's upload (which may be long, or failing); then the uploads that
        // are due, each of which queues its pointer message; then those.
        await postDue(into: &report)
        if let uploads {
            await uploads.uploadPending()
            await postDue(into: &report)
        }
        let pendingAt = (try? store.outbox.items(status: .pending).map(\.nextAttemptAt).min()) ?? nil
        let uploadAt = (try? store.attachments.nextUploadAttempt()) ?? nil
        report.nextAttemptAt = [pendingAt, uploadAt].compactMap { $0 }.min()
        return report
    }

    /// Posts every queued request that is due now.
    private func postDue(isolation: isolated (any Actor)? = #isolation, into report: inout OutboxReport) async {
        let now = dependencies.clock.now()
        // A database that cannot be read now (locked, damaged, a full disk)
        // says nothing about the requests: they stay pending for the next pass.
        guard let due = try? store.outbox.due(at: now) else { return }
        for item in due {
            let members: [[UInt8]]?, recipient: Recipient?
            do {
                members = try store.groups.undeliveredRecipients(requestId: item.requestId)
                recipient = members == nil ? try self.recipient(conversationId: item.conversationId) : nil
            } catch where Inbox.isLocalStorageFailure(error) {
                // Read as "no members" and "no contact", such a failure gave a
                // group message up for good as sent to a removed contact.
                report.retrying += 1
                continue
            } catch {
                // A stored identity key that no longer decodes: no retry mends it.
                giveUp(item, reason: "\(error)", into: &report)
                continue
            }
            if let members {
                await depositToGroup(item, members: members, at: now, into: &report)
                continue
            }
            guard let recipient else {
                giveUp(item, reason: "the contact no longer exists", into: &report)
                continue
            }
            do {
                let receipt = try await deposit(item, to: recipient)
                // Not waited for on the disk: lost to a power cut, the request
                // is simply deposited again under its request id, and the
                // relay answers with the same message id without storing twice.
                _ = try store.write(durability: .deferred) { store in
                    try store.sendQueue.markSent(requestId: item.requestId, serverId: receipt.serverID, relayTimestamp: receipt.relayTimestamp)
                }
                report.sent += 1
                if let messageID = item.messageId, let message = try store.messages.message(id: messageID) {
                    dependencies.emit(.statusChanged(clientMessageID: message.clientMessageId, status: message.status, contact: recipient.name,
                                                     messageID: message.id, conversationID: message.conversationId))
                }
            } catch let failure as DeliveryFailure {
                record(failure, of: item, for: recipient.name, at: now, in: &report)
            } catch {
                // A local store error after the relay accepted: the request stays
                // pending and the relay's idempotency returns the same id next time.
                report.retrying += 1
            }
        }
    }

    /// Fails a request that no retry can deliver; one whose failure cannot
    /// be written stays pending (and is counted so).
    private func giveUp(_ item: OutboxItem, reason: String, into report: inout OutboxReport) {
        do {
            try store.sendQueue.markFailed(requestId: item.requestId, error: reason, nextAttemptAt: nil)
            report.failed += 1
        } catch {
            report.retrying += 1
        }
    }

    /// A group message's fan-out: one request to every member it has not
    /// reached yet. Members the relay took are recorded at once; the request
    /// is sent (and its message too) once every member has it, and retried
    /// for the rest by the backoff of the first refusal otherwise. A refused
    /// credential is forgotten and that member tried again at once without.
    private func depositToGroup(isolation: isolated (any Actor)? = #isolation, _ item: OutboxItem, members: [[UInt8]], at now: Int64,
                                into report: inout OutboxReport) async {
        var targets: [(recipient: FanOutRecipient, contactId: Int64?)] = []
        do {
            for raw in members {
                guard let key = try? IdentityKey(rawRepresentation: raw) else { continue }
                // A failed read is not "no credential": that would spend the
                // relay's first-contact allowance (and work) on a contact.
                let contact = try store.contacts.contact(identityKey: raw)
                let credential = try contact.flatMap { try store.contacts.deliveryCredential(contactId: $0.id) }
                targets.append((FanOutRecipient(key: key, credential: credential), contact?.id))
            }
        } catch {
            report.retrying += 1
            return
        }
        let transport = dependencies.transport
        do {
            var results = try await transport.depositFanOut(item.payload, requestID: item.requestId, to: targets.map(\.recipient))
            let refusedCredentials = targets.indices.filter { index in
                if case let .failure(failure) = results[index], failure.refusesCredential, targets[index].recipient.credential != nil { return true }
                return false
            }
            if !refusedCredentials.isEmpty {
                for index in refusedCredentials { if let id = targets[index].contactId { try? store.contacts.setDeliveryCredential(nil, contactId: id) } }
                let again = try await transport.depositFanOut(item.payload, requestID: item.requestId,
                                                              to: refusedCredentials.map { FanOutRecipient(key: targets[$0].recipient.key, credential: nil) })
                for (offset, index) in refusedCredentials.enumerated() where offset < again.count { results[index] = again[offset] }
            }
            var firstFailure: DeliveryFailure?
            var firstReceipt: DepositReceipt?
            // Deferred durability, as for a single deposit: the fan-out is
            // idempotent per member and request id.
            let completed: Bool = try store.write(durability: .deferred) { store in
                for (index, target) in targets.enumerated() where index < results.count {
                    switch results[index] {
                    case let .success(receipt):
                        firstReceipt = firstReceipt ?? receipt
                        try store.groups.markDeposited(requestId: item.requestId, memberKey: target.recipient.key.rawRepresentation)
                    case let .failure(failure):
                        firstFailure = firstFailure ?? failure
                    }
                }
                guard try store.groups.undeliveredRecipients(requestId: item.requestId)?.isEmpty ?? true, let receipt = firstReceipt else {
                    return false
                }
                _ = try store.sendQueue.markSent(requestId: item.requestId, serverId: receipt.serverID, relayTimestamp: receipt.relayTimestamp)
                return true
            }
            if completed {
                report.sent += 1
                if let messageID = item.messageId, let message = try store.messages.message(id: messageID) {
                    let group = try store.groups.group(conversationId: item.conversationId)?.name ?? ""
                    dependencies.emit(.statusChanged(clientMessageID: message.clientMessageId, status: message.status, contact: group,
                                                     messageID: message.id, conversationID: message.conversationId))
                }
            } else {
                record(firstFailure ?? .unavailable(reason: "the relay answered for no member"), of: item, for: "", at: now, in: &report)
            }
        } catch let failure as DeliveryFailure {
            record(failure, of: item, for: "", at: now, in: &report)
        } catch {
            report.retrying += 1
        }
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

    /// Records a failed deposit as `BackoffPolicy` decides: retry later, or give up.
    /// `recipient` names the contact for the event ("" for a group's fan-out).
    private func record(_ failure: DeliveryFailure, of item: OutboxItem, for recipient: String, at now: Int64,
                        in report: inout OutboxReport) {
        let decision = backoff.decision(for: failure, failures: item.failCount + 1, using: dependencies.random)
        if failure.isRefusal, let messageID = item.messageId { report.refusedMessageIDs.insert(messageID) }
        // The attempt's time is written with its outcome: written before the
        // deposit, it cost every send a commit (an fsync) of its own, and a
        // request the relay took is removed from the outbox anyway.
        // When the outcome cannot be written, the request stays as it was:
        // pending, tried again at the next pass, and reported as such.
        func markFailed(_ error: String, retryAt: Int64?) -> Bool {
            do {
                try store.write { store in
                    try store.outbox.recordAttempt(requestId: item.requestId, at: now)
                    try store.sendQueue.markFailed(requestId: item.requestId, error: error, nextAttemptAt: retryAt)
                }
                return true
            } catch {
                return false
            }
        }
        if case let .retry(after) = decision {
            _ = markFailed(failure.description, retryAt: now + after)
            report.retrying += 1
            return
        }
        let reason = if case let .giveUp(reason) = decision { reason } else { failure.description }
        guard markFailed(reason, retryAt: nil) else {
            report.retrying += 1
            return
        }
        report.failed += 1
        if let messageID = item.messageId, let message = try? store.messages.message(id: messageID) {
            dependencies.emit(.statusChanged(clientMessageID: message.clientMessageId, status: .failed, contact: recipient,
                                             messageID: message.id, conversationID: message.conversationId))
        }
    }

    /// Who a request goes to, and the delivery credential they gave us.
    private struct Recipient {
        let key: IdentityKey
        let credential: [UInt8]?
        let name: String
        let contactId: Int64
    }

    /// Deposits an outbox request. Deposits are anonymous (sealed sender): no
    /// session token; logging in first would tell the relay which identity
    /// posts each envelope. When the relay no longer knows the credential the
    /// contact gave us (they re-registered, lost it, or replaced it after
    /// blocking someone), it is forgotten and the envelope deposited as a
    /// first contact at once; the contact hands over its current one with the
    /// next thing it seals to us.
    private func deposit(isolation: isolated (any Actor)? = #isolation, _ item: OutboxItem,
                         to recipient: Recipient) async throws(DeliveryFailure) -> DepositReceipt {
        let transport = dependencies.transport
        do {
            return try await transport.deposit(item.payload, to: recipient.key, requestID: item.requestId, credential: recipient.credential)
        } catch where error.refusesCredential && recipient.credential != nil {
            try? store.contacts.setDeliveryCredential(nil, contactId: recipient.contactId)
            return try await transport.deposit(item.payload, to: recipient.key, requestID: item.requestId, credential: nil)
        }
    }

    /// nil when the conversation's contact is gone (removed while the request waited).
    private func recipient(conversationId: Int64) throws -> Recipient? {
        guard let contact = try store.contacts.contact(conversationId: conversationId) else { return nil }
        return Recipient(key: try IdentityKey(rawRepresentation: contact.identityKey),
                         credential: try store.contacts.deliveryCredential(contactId: contact.id), name: contact.name, contactId: contact.id)
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
