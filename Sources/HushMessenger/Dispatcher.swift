import HushCrypto
import HushProtocol
import HushRelayAPI
import HushStore

/// Delivers what is queued, already sealed: posts every due outbox request,
/// decides with `BackoffPolicy` what a failure means (retry later, or give
/// up), records the outcome and tells live views about it. It seals nothing
/// and queues nothing.
///
/// A request to one contact is dispatched as a fan-out of one recipient, so
/// the rules for a refused credential, partial success, retries and outcomes
/// exist once. Only the relay call differs, and is kept as the relay API
/// has it: a contact's request is a single deposit (`POST /v1/deposit`), a
/// group message one fan-out to the members it has not reached yet
/// (`POST /v1/fanout`), so what goes on the wire is what it always was.
final class Dispatcher {
    private let dependencies: MessengerDependencies
    private let backoff: BackoffPolicy
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, backoff: BackoffPolicy) {
        self.dependencies = dependencies
        self.backoff = backoff
    }

    /// Where a request goes, and how it reaches them.
    private enum Route {
        /// A contact's mailbox, by a single deposit; status events name the contact.
        case contact(name: String)
        /// A group message's members not reached yet, by one fan-out; each
        /// member the relay takes is recorded, and the request is sent once
        /// every member has it.
        case group

        var isContact: Bool { if case .contact = self { true } else { false } }
    }

    /// One recipient of a request, and their contact (whose credential is
    /// forgotten when the relay no longer knows it).
    private struct Addressee {
        let recipient: FanOutRecipient
        let contactId: Int64?
    }

    /// Posts every queued request that is due now. On a 201 (from every
    /// member, for a group message) the request becomes a sent message
    /// carrying the relay's id; failures follow `BackoffPolicy`.
    func dispatchDue(isolation: isolated (any Actor)? = #isolation, into report: inout OutboxReport) async {
        let now = dependencies.clock.now()
        // A device the account revoked (§20.14) posts nothing: what the user writes is refused
        // before it is sealed, and every contact would set the rest (receipts, decryption errors,
        // transcripts, a file prepared before the list came) aside, each making their sync report it.
        if let revokedAt = try? dependencies.thisDeviceRevokedAt() {
            let reason = MessengerError.deviceRevoked(revokedAt: revokedAt).description
            // Every pending request, not only those due now: one waiting out a backoff would go later.
            while let page = try? store.outbox.items(status: .pending), !page.isEmpty {
                for item in page {
                    do {
                        try store.write { store in
                            try store.sendQueue.markFailed(requestId: item.requestId, error: reason, nextAttemptAt: nil)
                            // Open views show it failed, as for any request given up on (same commit).
                            if let messageID = item.messageId, let message = try store.messages.message(id: messageID) {
                                try dependencies.emit(.statusChanged(clientMessageID: message.clientMessageId, status: .failed, contact: "",
                                                                     messageID: message.id, conversationID: message.conversationId))
                            }
                        }
                        report.failed += 1
                    } catch {
                        report.retrying += 1
                        return
                    }
                }
            }
            return
        }
        // A database that cannot be read now (locked, damaged, a full disk)
        // says nothing about the requests: they stay pending for the next pass.
        // Page after page, each request once a pass: a large group's state
        // queues a request per member (§18.4), far more than one page.
        var afterRow: Int64 = 0
        while let page = try? store.outbox.duePage(at: now, afterRow: afterRow), let last = page.lastRow {
            afterRow = last
            await dispatch(page.items, at: now, into: &report)
        }
    }

    /// A due request with where it goes, resolved before anything is posted.
    private struct Delivery {
        let item: OutboxItem
        let route: Route
        let addressees: [Addressee]

        /// Requests in one lane are posted one after another, in the order
        /// they were queued: those to one mailbox, so that a session's
        /// messages reach it in the order they were sealed, and every request
        /// to several mailboxes (group fan-outs), which may share members.
        /// Lanes are posted side by side.
        var lane: [UInt8] {
            addressees.count == 1 ? addressees[0].recipient.key.rawRepresentation : []
        }
    }

    /// How many lanes are posted at once. A content to a contact with linked
    /// devices is one request per device (§20.12): posted one after another,
    /// each waited for the relay's durable commit, and three devices took
    /// 2.5× one device's time to reach.
    static let concurrentLanes = 8

    private func dispatch(isolation: isolated (any Actor)? = #isolation, _ due: [OutboxItem], at now: Int64,
                          into report: inout OutboxReport) async {
        var deliveries: [Delivery] = []
        for item in due {
            let members: [[UInt8]]?, contact: (name: String, addressee: Addressee, retired: Bool)?
            do {
                members = try store.groups.undeliveredRecipients(requestId: item.requestId)
                contact = members == nil ? try self.contact(conversationId: item.conversationId) : nil
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
                do {
                    deliveries.append(Delivery(item: item, route: .group, addressees: try self.addressees(members: members)))
                } catch {
                    report.retrying += 1
                }
            } else if let contact {
                // Never to an account key the list held retires (§20.14): what was queued for it was
                // dropped when the list came (`RetiredAccountKey`); anything left would reach the revoked device.
                guard !contact.retired else {
                    try? store.sendQueue.abandon(requestId: item.requestId)
                    report.failed += 1
                    continue
                }
                deliveries.append(Delivery(item: item, route: .contact(name: contact.name), addressees: [contact.addressee]))
            } else {
                giveUp(item, reason: "the contact no longer exists", into: &report)
            }
        }
        let (answers, heldBehind) = await postInLanes(deliveries)
        var held: [(item: OutboxItem, blocker: OutboxItem)] = []
        for (index, (delivery, answer)) in zip(deliveries, answers).enumerated() {
            if let blocker = heldBehind[index] {
                held.append((delivery.item, deliveries[blocker].item))
                continue
            }
            await conclude(delivery, answer: answer, at: now, into: &report)
        }
        postpone(held, at: now, into: &report)
    }

    /// Requests not posted because one before them in their lane could not
    /// be (see `failureHoldingTheLane`): each goes when that one goes next,
    /// and counts no attempt; once that one is sent or given up, nothing
    /// holds it. One commit for them all: a burst queued during an outage
    /// holds hundreds, and a commit each made every send wait for them.
    private func postpone(_ held: [(item: OutboxItem, blocker: OutboxItem)], at now: Int64, into report: inout OutboxReport) {
        guard !held.isEmpty else { return }
        report.retrying += held.count
        try? store.write { store in
            var ahead: [String: OutboxItem?] = [:]
            for (item, blocker) in held {
                if ahead[blocker.requestId] == nil { ahead[blocker.requestId] = try store.outbox.item(requestId: blocker.requestId) }
                guard let first = ahead[blocker.requestId] ?? nil, first.status == .pending, first.nextAttemptAt > now else { continue }
                // The reason the one ahead could not go is this one's too (`hush send` shows it).
                try store.outbox.postpone(requestId: item.requestId, until: first.nextAttemptAt,
                                          reason: first.lastError ?? "waiting for an earlier message to the same recipient")
            }
        }
    }

    /// The relay's first answer to each delivery, in order: lanes side by
    /// side (at most `concurrentLanes` at once), each lane's requests one
    /// after another. Only the relay calls run concurrently; every store
    /// read and write stays on the caller's isolation.
    /// Also which deliveries were not posted, each with the one before it in
    /// its lane whose failure held it.
    private func postInLanes(isolation: isolated (any Actor)? = #isolation, _ deliveries: [Delivery])
        async -> (answers: [Result<[Result<DepositReceipt, DeliveryFailure>], DeliveryFailure>], heldBehind: [Int: Int]) {
        var lanes: [[UInt8]: [Int]] = [:], order: [[UInt8]] = []
        for (index, delivery) in deliveries.enumerated() {
            if lanes[delivery.lane] == nil { order.append(delivery.lane) }
            lanes[delivery.lane, default: []].append(index)
        }
        var answers = [Result<[Result<DepositReceipt, DeliveryFailure>], DeliveryFailure>](
            repeating: .failure(.unavailable(reason: "not posted")), count: deliveries.count)
        var heldBehind: [Int: Int] = [:]
        let transport = dependencies.transport
        let requests = deliveries.map { (payload: $0.item.payload, requestID: $0.item.requestId,
                                         isContact: $0.route.isContact, recipients: $0.addressees.map(\.recipient)) }
        await withTaskGroup(of: [(Int, Result<[Result<DepositReceipt, DeliveryFailure>], DeliveryFailure>, held: Int?)].self) { group in
            var next = order.makeIterator()
            func startLane() -> Bool {
                guard let lane = next.next(), let indices = lanes[lane] else { return false }
                let work = indices.map { ($0, requests[$0]) }
                group.addTask {
                    var done: [(Int, Result<[Result<DepositReceipt, DeliveryFailure>], DeliveryFailure>, held: Int?)] = []
                    // After a request that will be tried again, the lane's later ones wait with it: posted
                    // now, they would reach the mailbox first and show above it in the conversation.
                    var blocker: (index: Int, failure: DeliveryFailure)?
                    for (index, request) in work {
                        if let blocker {
                            done.append((index, .failure(blocker.failure), held: blocker.index))
                            continue
                        }
                        let answer: Result<[Result<DepositReceipt, DeliveryFailure>], DeliveryFailure>
                        do throws(DeliveryFailure) {
                            answer = .success(try await Self.send(request.payload, requestID: request.requestID, toContact: request.isContact,
                                                                  recipients: request.recipients, through: transport))
                        } catch {
                            answer = .failure(error)
                        }
                        done.append((index, answer, held: nil))
                        blocker = Self.failureHoldingTheLane(answer).map { (index, $0) }
                    }
                    return done
                }
                return true
            }
            for _ in 0..<Self.concurrentLanes where !startLane() { break }
            for await finished in group {
                for (index, answer, held) in finished {
                    answers[index] = answer
                    if let held { heldBehind[index] = held }
                }
                _ = startLane()
            }
        }
        return (answers, heldBehind)
    }

    /// A failure after which a lane's later requests are not posted in this
    /// pass but given the same answer: the relay could not take this one now
    /// (it is tried again later, or, for a refused credential, again at once
    /// without one, each in the lane's order). Not when one member of a
    /// fan-out failed alone: the others took it.
    private static func failureHoldingTheLane(_ answer: Result<[Result<DepositReceipt, DeliveryFailure>], DeliveryFailure>) -> DeliveryFailure? {
        let failure: DeliveryFailure
        switch answer {
        case let .failure(whole): failure = whole
        case let .success(results):
            guard results.count == 1, case let .failure(only) = results[0] else { return nil }
            failure = only
        }
        switch failure {
        case .unavailable, .rateLimited: return failure
        default: return failure.refusesCredential ? failure : nil
        }
    }

    /// Records what the relay answered for `delivery`. Deferred durability
    /// on success: lost to a power cut, the request is simply posted again
    /// under its request id, and the relay answers with the same message id
    /// without storing twice (per mailbox, for a fan-out).
    private func conclude(isolation: isolated (any Actor)? = #isolation, _ delivery: Delivery,
                          answer: Result<[Result<DepositReceipt, DeliveryFailure>], DeliveryFailure>,
                          at now: Int64, into report: inout OutboxReport) async {
        let item = delivery.item, route = delivery.route, addressees = delivery.addressees
        do {
            let results = try await retryingRefusedCredentials(item, route: route, to: addressees, answer: answer.get())
            var firstFailure: DeliveryFailure?
            var taken: [(key: IdentityKey, receipt: DepositReceipt)] = []
            for (index, addressee) in addressees.enumerated() where index < results.count {
                switch results[index] {
                case let .success(receipt): taken.append((addressee.recipient.key, receipt))
                case let .failure(failure): firstFailure = firstFailure ?? failure
                }
            }
            let completed: Bool = try taken.isEmpty ? false : store.write(durability: .deferred) { store in
                if case .group = route {
                    for member in taken {
                        try store.groups.markDeposited(requestId: item.requestId, memberKey: member.key.rawRepresentation)
                    }
                    guard try store.groups.undeliveredRecipients(requestId: item.requestId)?.isEmpty ?? true else { return false }
                }
                _ = try store.sendQueue.markSent(requestId: item.requestId, serverId: taken[0].receipt.serverID,
                                                 relayTimestamp: taken[0].receipt.relayTimestamp)
                // The relay's time now: a member we removed before this was queued is closed there (`closeChains`).
                try store.groups.settleClosures(queuedAt: item.createdAt, storedAt: taken[0].receipt.relayTimestamp)
                // Logged with the status it tells of, in the same commit.
                if let messageID = item.messageId, let message = try store.messages.message(id: messageID) {
                    let name = switch route {
                    case let .contact(name): name
                    // A request to a contact's device (its account key retired, §20.14) is addressed as a group's.
                    case .group: try store.groups.group(conversationId: item.conversationId)?.name
                        ?? store.contacts.contact(conversationId: item.conversationId)?.name ?? ""
                    }
                    try dependencies.emit(.statusChanged(clientMessageID: message.clientMessageId, status: message.status, contact: name,
                                                         messageID: message.id, conversationID: message.conversationId))
                }
                return true
            }
            guard completed else {
                record(firstFailure ?? .unavailable(reason: "the relay answered for no member"), of: item, route: route, at: now, in: &report)
                return
            }
            report.sent += 1
        } catch let failure as DeliveryFailure {
            // The fan-out failed as a whole (the relay down, over its limits).
            record(failure, of: item, route: route, at: now, in: &report)
        } catch {
            // A local store error after the relay accepted: the request stays
            // pending and the relay's idempotency returns the same id next time.
            report.retrying += 1
        }
    }

    /// The relay's answer for each addressee, in order, after a refused
    /// credential was dealt with. Deposits are anonymous (sealed sender): no
    /// session token; logging in first would tell the relay which identity
    /// posts each envelope. When the relay no longer knows the credential a
    /// contact gave us (they re-registered, lost it, or replaced it after
    /// blocking someone), it is forgotten and the envelope posted to them
    /// again at once as a first contact; the contact hands over its current
    /// one with the next thing it seals to us.
    private func retryingRefusedCredentials(isolation: isolated (any Actor)? = #isolation, _ item: OutboxItem, route: Route,
                                            to addressees: [Addressee],
                                            answer: [Result<DepositReceipt, DeliveryFailure>])
        async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        var results = answer
        let refusedCredentials = addressees.indices.filter { index in
            guard index < results.count, case let .failure(failure) = results[index] else { return false }
            return failure.refusesCredential && addressees[index].recipient.credential != nil
        }
        guard !refusedCredentials.isEmpty else { return results }
        for index in refusedCredentials {
            if let id = addressees[index].contactId { try? store.contacts.setDeliveryCredential(nil, contactId: id) }
        }
        let again = try await Self.send(item.payload, requestID: item.requestId, toContact: route.isContact,
                                        recipients: refusedCredentials.map { FanOutRecipient(key: addressees[$0].recipient.key, credential: nil) },
                                        through: dependencies.transport)
        for (offset, index) in refusedCredentials.enumerated() where offset < again.count { results[index] = again[offset] }
        return results
    }

    /// One relay call: a single deposit for a contact, a fan-out for a group.
    private static func send(_ payload: [UInt8], requestID: String, toContact: Bool, recipients: [FanOutRecipient],
                             through transport: any RelayTransport) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        guard toContact, recipients.count == 1, let recipient = recipients.first else {
            // The relay takes at most 255 mailboxes a request: a large group's
            // message (docs/PROTOCOL.md §18.4) goes in parts of the same bytes
            // under the same request id. The relay keeps a request id per
            // mailbox, so a retry may group the members not yet reached anew.
            var results: [Result<DepositReceipt, DeliveryFailure>] = []
            results.reserveCapacity(recipients.count)
            for start in stride(from: 0, to: recipients.count, by: RelayLimits.maxFanOutRecipients) {
                let part = Array(recipients[start..<min(start + RelayLimits.maxFanOutRecipients, recipients.count)])
                results += try await transport.depositFanOut(payload, requestID: requestID, to: part)
            }
            return results
        }
        do {
            return [.success(try await transport.deposit(payload, to: recipient.key, requestID: requestID,
                                                         credential: recipient.credential))]
        } catch {
            return [.failure(error)]
        }
    }

    /// Records a failed post as `BackoffPolicy` decides: retry later, or give up.
    private func record(_ failure: DeliveryFailure, of item: OutboxItem, route: Route, at now: Int64, in report: inout OutboxReport) {
        // Posted ahead of its schedule (with a later request of its conversation, `OutboxRepository.due`)
        // and the relay still unreachable: not one of its tries, or every message written during an
        // outage would spend those of the ones before it. It keeps its schedule.
        if item.nextAttemptAt > now {
            switch failure {
            case .unavailable:
                report.retrying += 1
                return
            case let .rateLimited(retryAfter):
                // Not a try either; the relay's Retry-After still holds.
                let later = max(item.nextAttemptAt, now + max(0, retryAfter ?? 0))
                try? store.write { store in try store.outbox.reschedule(requestId: item.requestId, at: later) }
                report.retrying += 1
                return
            default:
                break
            }
        }
        let decision = backoff.decision(for: failure, failures: item.failCount + 1, waited: now - item.createdAt, using: dependencies.random)
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
                    // Given up on: the message failed, logged in the same commit.
                    if retryAt == nil, let messageID = item.messageId, let message = try store.messages.message(id: messageID) {
                        // A group's failure names no one ("" as before): the ids say which conversation. A
                        // contact's message sent to a device (its account key retired) names the contact.
                        let name = if case let .contact(name) = route { name } else {
                            try store.groups.group(conversationId: item.conversationId) == nil
                                ? try store.contacts.contact(conversationId: item.conversationId)?.name ?? "" : ""
                        }
                        try dependencies.emit(.statusChanged(clientMessageID: message.clientMessageId, status: .failed, contact: name,
                                                             messageID: message.id, conversationID: message.conversationId))
                    }
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

    /// The contact a request to a conversation goes to, with the credential
    /// they gave us; nil when the contact is gone (removed while the request waited).
    private func contact(conversationId: Int64) throws -> (name: String, addressee: Addressee, retired: Bool)? {
        guard let contact = try store.contacts.contact(conversationId: conversationId) else { return nil }
        let recipient = FanOutRecipient(key: try IdentityKey(rawRepresentation: contact.identityKey),
                                        credential: try store.contacts.deliveryCredential(contactId: contact.id))
        // A list kept for the contact that no longer reads says nothing about its key: not a reason to
        // give the request up (a key that does not decode is, below).
        return (contact.name, Addressee(recipient: recipient, contactId: contact.id), (try? dependencies.accountKeyRetired(contact)) ?? false)
    }

    /// A group message's members not reached yet, each with the credential
    /// they gave us (a key that no longer decodes is skipped). A failed read
    /// throws rather than reading as "no credential": that would spend the
    /// relay's first-contact allowance (and work) on a contact.
    private func addressees(members: [[UInt8]]) throws -> [Addressee] {
        try members.compactMap { raw in
            guard let key = try? IdentityKey(rawRepresentation: raw) else { return nil }
            // A contact's device (§20.12) presents the credential its account gave us: its devices register the same one.
            let contact = try store.contacts.contact(identityKey: raw)
                ?? store.deviceSessions.contactId(deviceKey: raw).flatMap { try store.contacts.contact(id: $0) }
            var credential = try contact.flatMap { try store.contacts.deliveryCredential(contactId: $0.id) }
            // Another device of ours (§20.12): the account's devices register the account's one.
            if contact == nil, try raw == dependencies.identity.publicKey.rawRepresentation || store.ownDeviceSessions.id(deviceKey: raw) != nil {
                credential = try store.settings.value(SettingsRepository.Name.deliveryCredential).map { try Hex.decode($0) }
            }
            // Only the account key's refusal forgets the contact's credential: a device that refuses it may
            // hold an older one (devices register theirs apart, "Devices in Hush today"), and forgetting it
            // would send everything to the account as first contacts. The device is posted to without it.
            let forgets = contact.flatMap { $0.identityKey == raw ? $0.id : nil }
            return Addressee(recipient: FanOutRecipient(key: key, credential: credential), contactId: forgets)
        }
    }
}
