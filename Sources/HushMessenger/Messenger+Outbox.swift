import HushCrypto
import HushProtocol
import HushStore

/// What one pass over the outbox did.
public struct OutboxReport: Sendable, Equatable {
    public var sent = 0
    public var retrying = 0
    public var failed = 0
    /// When the next pending request is due (ms since 1970), if any.
    public var nextAttemptAt: Int64?
    /// Messages (store row ids) whose deposit the relay answered in this pass
    /// with a refusal (4xx, 429 included) rather than being unreachable: the
    /// CLI reports the two differently.
    public var refusedMessageIDs: Set<Int64> = []
}

extension Messenger {
    /// Posts every due outbox request once. On 201 the request becomes a
    /// sent message carrying the relay's id; failures follow `BackoffPolicy`.
    @discardableResult
    public func flushOutbox() async -> OutboxReport {
        var report = OutboxReport()
        let now = clock.now()
        guard let due = try? store.outbox.due(at: now) else { return report }
        for item in due {
            guard let recipient = try? recipientIdentity(conversationId: item.conversationId) else {
                try? store.sendQueue.markFailed(requestId: item.requestId, error: "the contact no longer exists", nextAttemptAt: nil)
                report.failed += 1
                continue
            }
            try? store.outbox.recordAttempt(requestId: item.requestId, at: now)
            do {
                let receipt = try await deposit(item, to: recipient)
                _ = try store.sendQueue.markSent(requestId: item.requestId, serverId: receipt.serverID, relayTimestamp: receipt.relayTimestamp)
                report.sent += 1
                if let messageID = item.messageId, let message = try store.messages.message(id: messageID) {
                    emit(.statusChanged(clientMessageID: message.clientMessageId, status: message.status, contact: recipient.name))
                }
            } catch let failure as DeliveryFailure {
                // Deposits carry no token, so a 401 here is not fixed by logging
                // in: `alreadyReauthenticated: true` turns it into a give-up.
                let decision = backoff.decision(for: failure, failures: item.failCount + 1, alreadyReauthenticated: true, using: random)
                if failure.isRefusal, let messageID = item.messageId { report.refusedMessageIDs.insert(messageID) }
                if case let .retry(after) = decision {
                    try? store.sendQueue.markFailed(requestId: item.requestId, error: failure.description, nextAttemptAt: now + after)
                    report.retrying += 1
                } else {
                    let reason = if case let .giveUp(reason) = decision { reason } else { failure.description }
                    try? store.sendQueue.markFailed(requestId: item.requestId, error: reason, nextAttemptAt: nil)
                    report.failed += 1
                    if let messageID = item.messageId, let message = try? store.messages.message(id: messageID) {
                        emit(.statusChanged(clientMessageID: message.clientMessageId, status: .failed, contact: recipient.name))
                    }
                }
            } catch {
                // A local store error after the relay accepted: the request stays
                // pending and the relay's idempotency returns the same id next time.
                report.retrying += 1
            }
        }
        report.nextAttemptAt = try? store.outbox.items(status: .pending).map(\.nextAttemptAt).min()
        return report
    }

    /// Posts failed and pending requests now (the user's `hush retry`): failed
    /// ones become pending again, and pending ones waiting out their backoff are
    /// due at once; after an outage the user should not have to wait for the
    /// jittered schedule, which grows to minutes. A text message is sealed
    /// again on the current session first: the conversation may have moved on
    /// while it waited.
    public func retry(requestID: String?) async throws -> OutboxReport {
        let now = clock.now()
        let waiting = try store.outbox.items(status: .failed) + store.outbox.items(status: .pending)
        let chosen = requestID.map { id in waiting.filter { $0.requestId.hasPrefix(id) } } ?? waiting
        if let requestID, chosen.isEmpty { throw MessengerError.unknownMessage(requestID) }
        try store.write { store in
            for item in chosen where try !resealForRetry(item) {
                try store.sendQueue.retry(requestId: item.requestId, at: now)
            }
        }
        return await flushOutbox()
    }

    /// Deposits an outbox request. Deposits are anonymous (sealed sender): no
    /// session token; logging in first would tell the relay which identity
    /// posts each envelope. When the relay no longer knows the credential the
    /// contact gave us (they re-registered, lost it, or replaced it after
    /// blocking someone), it is forgotten and the envelope deposited as a
    /// first contact at once; the contact hands over its current one with the
    /// next thing it seals to us.
    private func deposit(_ item: OutboxItem, to recipient: (key: IdentityKey, credential: [UInt8]?, name: String, contactId: Int64))
        async throws(DeliveryFailure) -> DepositReceipt {
        do {
            return try await transport.deposit(item.payload, to: recipient.key, requestID: item.requestId, credential: recipient.credential)
        } catch where error.refusesCredential && recipient.credential != nil {
            try? store.contacts.setDeliveryCredential(nil, contactId: recipient.contactId)
            return try await transport.deposit(item.payload, to: recipient.key, requestID: item.requestId, credential: nil)
        }
    }

    private func recipientIdentity(conversationId: Int64) throws -> (key: IdentityKey, credential: [UInt8]?, name: String, contactId: Int64) {
        guard let contact = try store.contacts.contact(conversationId: conversationId) else {
            throw MessengerError.unknownContact("conversation \(conversationId)")
        }
        return (try IdentityKey(rawRepresentation: contact.identityKey), try store.contacts.deliveryCredential(contactId: contact.id),
                contact.name, contact.id)
    }
}
