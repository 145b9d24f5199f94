import HushCrypto
import HushProtocol
import HushStore

/// What was queued for an account key when the list that retires it
/// (docs/PROTOCOL.md §20.14) is taken: sealed on the account key's session
/// before anyone here knew, it would still reach the revoked device that
/// kept that key. Every active device of the account had its own copy,
/// sealed with it (§20.12): the account key's request is dropped, and for a
/// message in history (a text or a file) the copy queued for a device
/// carries the message's status from now on; a message with no copy left
/// waiting is sealed again on the contact's primary session
/// (`PrimarySession`), or failed with what to do. Nothing new is sealed
/// while a copy waits: the list came on a session the device may have just
/// started, and a second envelope to it would only repeat the copy. A group
/// envelope's row for the account key moves to the contact's primary
/// device. What waits for a revoked device's own mailbox is dropped the
/// same way (`dropQueued`). Joins the caller's transaction.
struct RetiredAccountKey {
    let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
    }

    /// For `contact`, whose list held here now retires its account key.
    func redirectQueued(for contact: Contact) throws {
        let sealer = Sealer(dependencies)
        let conversation = try dependencies.conversation(with: contact)
        let queued = try store.outbox.items(status: .pending) + store.outbox.items(status: .failed)
        // The copies for the contact's devices that wait, by the message they carry.
        var copies: [Int64: String] = [:]
        for item in queued where item.conversationId == conversation && item.messageId == nil {
            guard let rows = try store.groups.undeliveredRecipients(requestId: item.requestId), !rows.isEmpty,
                  let message = try store.resends.messageId(forEnvelope: SHA256.hash(item.payload)) else { continue }
            copies[message] = copies[message] ?? item.requestId
        }
        for item in queued where item.conversationId == conversation {
            // A request with rows goes to devices (or is a group's): not the account key's.
            guard try store.groups.undeliveredRecipients(requestId: item.requestId) == nil else { continue }
            guard let messageId = item.messageId else {
                _ = try store.outbox.remove(requestId: item.requestId)
                continue
            }
            if let copy = copies[messageId] {
                _ = try store.outbox.remove(requestId: item.requestId)
                try store.outbox.carry(messageId: messageId, requestId: copy)
                continue
            }
            // No session with the contact's other devices yet: failed, with what to do (`hush retry` reseals it).
            let resealed: Bool
            do { resealed = try sealer.resealForRetry(item) } catch is MessengerError { resealed = false }
            if !resealed { try fail(item.requestId) }
        }
        let primary = try? PrimarySession.load(for: contact, dependencies).device
        for orphan in try store.groups.readdressUndelivered(memberKey: contact.identityKey, to: primary) { try fail(orphan) }
    }

    /// For this account's own account key, on a linked device whose list now
    /// retires it: copies for the first device are dropped.
    func redirectOwnQueued() throws {
        try dropQueued(for: dependencies.identity.publicKey.rawRepresentation)
    }

    /// What waits to be posted to the mailbox `key` (a revoked device's, or
    /// a retired account key's) and has not reached it: dropped; a message
    /// that waited for it alone is failed, with what to do.
    func dropQueued(for key: [UInt8]) throws {
        for orphan in try store.groups.readdressUndelivered(memberKey: key, to: nil) {
            guard let item = try store.outbox.item(requestId: orphan) else { continue }
            if item.messageId == nil { _ = try store.outbox.remove(requestId: orphan) } else { try fail(orphan) }
        }
    }

    private func fail(_ requestId: String) throws {
        try store.sendQueue.markFailed(requestId: requestId, error: "queued for a device revoked since (or for the account key the first device kept): "
            + "`hush retry` seals it again for the account's remaining devices once a session with them has started", nextAttemptAt: nil)
    }
}
