import HushCrypto
import HushProtocol
import HushStore

/// What waits in the outbox for a mailbox nothing may go to any more, when
/// the list that says so is taken (docs/PROTOCOL.md §20.14): a contact's
/// account key retired (the device that kept it revoked), a contact's
/// revoked device, or one of our own. Sealed before anyone here knew, it
/// would still reach the revoked device.
///
/// Every active device of an account had its own copy, sealed with it
/// (§20.12), so what waits for the retired or revoked mailbox is dropped,
/// and a message in history it carried is carried from then on by a copy
/// that still waits for another device of the account. A message with no
/// such copy is sealed again on the contact's primary session
/// (`PrimarySession`), or failed when there is none yet. A small group's
/// envelope waiting for a retired account key goes to the contact's primary
/// device instead (the same bytes open there); a large group's does not (its
/// devices hold none of its keys, §18.4). Nothing is left in the outbox with
/// no mailbox: such a request would be taken for one to its conversation's
/// contact, whose account key it is. Joins the caller's transaction.
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
        for item in try store.outbox.items(status: .pending) + store.outbox.items(status: .failed) where item.conversationId == conversation {
            // A request with rows goes to devices: not the account key's.
            guard try store.groups.undeliveredRecipients(requestId: item.requestId) == nil else { continue }
            guard let messageId = item.messageId else {
                _ = try store.outbox.remove(requestId: item.requestId)
                continue
            }
            if try carry(messageId, from: item.requestId, in: conversation) { continue }
            // No copy waits: sealed again for a remaining device, or failed (a text or file `hush send` writes again).
            let resealed: Bool
            do { resealed = try sealer.resealForRetry(item) } catch is MessengerError { resealed = false }
            if !resealed { try store.sendQueue.abandon(requestId: item.requestId) }
        }
        let primary: [UInt8]?
        do { primary = try PrimarySession.load(for: contact, dependencies).device } catch is MessengerError { primary = nil }
        for request in try store.groups.requestsAwaiting(memberKey: contact.identityKey) {
            let large = try store.outbox.item(requestId: request).flatMap { try store.groups.group(conversationId: $0.conversationId) }?.isLarge
            try readdress(request, away: contact.identityKey, to: large == true ? nil : primary)
        }
    }

    /// What waits to be posted to the mailbox `key` (a revoked device's, or
    /// our own account key on a linked device, once retired) and has not
    /// reached it: dropped.
    func dropQueued(for key: [UInt8]) throws {
        for request in try store.groups.requestsAwaiting(memberKey: key) { try readdress(request, away: key, to: nil) }
    }

    /// Moves `request`'s row for `key` to `replacement` (nil: drops it); a
    /// request left with no mailbox is removed, its message carried by
    /// another copy or failed.
    private func readdress(_ request: String, away key: [UInt8], to replacement: [UInt8]?) throws {
        guard try !store.groups.readdress(requestId: request, memberKey: key, to: replacement),
              let item = try store.outbox.item(requestId: request) else { return }
        if let messageId = item.messageId, try carry(messageId, from: request, in: item.conversationId) { return }
        try store.sendQueue.abandon(requestId: request)
    }

    /// Hands message `messageId`, carried by `request` (which goes), to
    /// another request of `conversation` that still waits for a device with
    /// a copy of it; false when none does.
    private func carry(_ messageId: Int64, from request: String, in conversation: Int64) throws -> Bool {
        for item in try store.outbox.items(status: .pending) where item.conversationId == conversation && item.requestId != request
            && item.messageId == nil {
            guard let rows = try store.groups.undeliveredRecipients(requestId: item.requestId), !rows.isEmpty,
                  try store.resends.messageId(forEnvelope: SHA256.hash(item.payload)) == messageId else { continue }
            _ = try store.outbox.remove(requestId: request)
            try store.outbox.carry(messageId: messageId, requestId: item.requestId)
            return true
        }
        return false
    }
}
