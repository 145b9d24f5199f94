import HushProtocol
import HushStore

/// Delivery receipts for the messages a receive pass stores: one receipt
/// envelope per contact per pass, naming every message it acknowledges (up
/// to 256 ids each, docs/PROTOCOL.md Appendix C), instead of one per message.
///
/// Storing a message records the receipt it is owed, in the transaction
/// that stores it (`owe`); the end of the pass seals what each contact is
/// owed and forgets it in one transaction (`sealOwed`). So a receipt only
/// ever names a committed message, and a crash between the two loses none:
/// the next pass seals what is still owed.
final class DeliveryReceipts {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, sealer: Sealer) {
        self.dependencies = dependencies
        self.sealer = sealer
    }

    /// Records that `contact` is owed a delivery receipt for the stored
    /// message `id`. Joins the caller's transaction.
    func owe(_ id: MessageID, to contact: Contact) throws {
        try store.owedReceipts.owe(contactId: contact.id, clientMessageId: id.description)
    }

    /// Seals and queues every receipt owed, one transaction per contact. A
    /// contact no longer accepted (blocked since) is sent nothing and owed
    /// nothing; one whose key changed is owed them until the user accepts
    /// the new key. A failure (our database, a missing session) leaves that
    /// contact's receipts owed for the next pass, like a request the outbox
    /// could not post.
    func sealOwed() {
        guard let owing = try? store.owedReceipts.contacts() else { return }
        for contactId in owing {
            try? store.write { store in
                guard let contact = try store.contacts.contact(id: contactId), contact.standing == .accepted else {
                    try store.owedReceipts.forget(contactId: contactId)
                    return
                }
                guard contact.verification != .changed else { return }
                let owed = try store.owedReceipts.owed(contactId: contactId).map { try MessageID(hex: $0) }
                for start in stride(from: 0, to: owed.count, by: ContentLimits.maxReceiptIDs) {
                    try sealer.seal(.deliveryReceipt(Array(owed[start..<min(start + ContentLimits.maxReceiptIDs, owed.count)])),
                                    to: contact.name)
                }
                try store.owedReceipts.forget(contactId: contactId)
            }
        }
    }
}
