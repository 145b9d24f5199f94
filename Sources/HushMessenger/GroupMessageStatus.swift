import HushProtocol
import HushStore

/// The overall status of our group messages (docs/PROTOCOL.md §18.3): a
/// message is delivered (read) once every member it waits for has
/// delivered (read) it. A member who leaves the group stops counting for
/// what it had not confirmed: it will never read it (its receipts would
/// hold the message at "sent" for good). Runs inside the caller's transaction.
struct GroupMessageStatus {
    let dependencies: MessengerDependencies
    private var store: MessageStore { dependencies.store }

    /// Moves `message` on to the lowest status every member it waits for
    /// has reached, and tells live views when it moved.
    func settle(_ message: StoredMessage, in group: StoredGroup) throws {
        let reached = try store.groups.receipts(messageId: message.id).map { MessageStatus(rawValue: $0.status) ?? .sent }
        let lowest = reached.min { $0.receiptRank < $1.receiptRank }
        let overall: MessageStatus? = switch lowest {
        case .read?: .read
        case .delivered?: .delivered
        default: nil
        }
        guard let overall,
              try store.messages.advanceOutgoingStatus(clientMessageId: message.clientMessageId, to: overall, at: dependencies.clock.now(),
                                                       conversationId: group.conversationId) else { return }
        try dependencies.emit(.statusChanged(clientMessageID: message.clientMessageId, status: overall, contact: group.name,
                                             messageID: message.id, conversationID: group.conversationId))
    }

    /// `member` is no longer in `group`: our messages there stop waiting
    /// for what it had not confirmed, and move on where the others have.
    func stopWaiting(for member: IdentityKey, in group: StoredGroup) throws {
        for id in try store.groups.forgetUnreadReceipts(of: member.rawRepresentation, conversationId: group.conversationId) {
            guard let message = try store.messages.message(id: id) else { continue }
            try settle(message, in: group)
        }
    }
}
