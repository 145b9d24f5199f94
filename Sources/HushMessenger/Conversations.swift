import HushCrypto
import HushProtocol
import HushStore

/// A conversation as the user reads it: its history, what was resent, and
/// marking it read, which queues encrypted read receipts.
final class Conversations {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, sealer: Sealer) {
        self.dependencies = dependencies
        self.sealer = sealer
    }

    /// A page of the conversation with `name`, oldest first (keyset pagination).
    func history(with name: String, before: Int64?, after: Int64?, limit: Int) throws -> [StoredMessage] {
        let conversation = try dependencies.conversation(with: dependencies.contact(named: name))
        return try store.messages.history(conversationId: conversation, before: before, after: after, limit: limit)
    }

    /// Client message ids of the messages to `name` that were resent after
    /// the contact reported them undecryptable (what `hush history` marks).
    func resentMessages(in name: String) throws -> [String] {
        let conversation = try dependencies.conversation(with: dependencies.contact(named: name))
        return try store.resends.resentClientMessageIds(conversationId: conversation)
    }

    /// Marks every incoming message of the conversation with `name` read and
    /// queues encrypted read receipts for them (none to a request, nor while
    /// an identity change waits). Returns how many were marked. Joins the
    /// caller's transaction.
    func markRead(contact name: String, upTo messageId: Int64? = nil) throws -> Int {
        let contact = try dependencies.contact(named: name)
        let now = dependencies.clock.now()
        return try store.withinWrite { store in
            let conversation = try dependencies.conversation(with: contact)
            let unread = try store.messages.unreadIncoming(conversationId: conversation, upTo: messageId)
            guard let last = unread.last else { return 0 }
            _ = try store.messages.markRead(upTo: last.id, in: conversation, at: now)
            if contact.verification != .changed, contact.standing == .accepted, dependencies.homeReplacedAt() == nil {
                for chunk in stride(from: 0, to: unread.count, by: ContentLimits.maxReceiptIDs) {
                    let ids = try unread[chunk..<min(chunk + ContentLimits.maxReceiptIDs, unread.count)]
                        .map { try MessageID(hex: $0.clientMessageId) }
                    try sealer.seal(.readReceipt(ids), to: contact.name)
                }
            }
            return unread.count
        }
    }
}

extension MessageID {
    init(hex: String) throws {
        try self.init(bytes: Hex.decode(hex))
    }
}
