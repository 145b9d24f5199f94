import HushProtocol
import HushStore

/// Erasing messages here (docs/PROTOCOL.md §10.7): a deletion by the user,
/// and the sweep of messages whose disappearing timer ran out. The store
/// side is `MessageRepository.erase`, the one place both go through; the
/// attachment files of erased messages go with `AttachmentSweep` once the
/// erasure committed (the files are the messenger's, never removed inside
/// a transaction that could still roll back). A deletion applied on the
/// live connection's push fast path leaves its file until the next sync or
/// open sweeps it; its row is gone at once, so nothing reaches the file.
struct MessageErasure {
    private let dependencies: MessengerDependencies
    private let attachmentSweep: AttachmentSweep

    init(_ dependencies: MessengerDependencies, attachmentSweep: AttachmentSweep) {
        self.dependencies = dependencies
        self.attachmentSweep = attachmentSweep
    }

    /// Erases message `messageId` here (`erasure` says how it shows) and removes its files.
    func erase(_ messageId: Int64, as erasure: MessageRepository.Erasure) throws {
        let store = dependencies.store
        try store.write { store in
            guard let message = try store.messages.message(id: messageId),
                  try store.messages.erase(messageId: messageId, as: erasure, at: dependencies.clock.now()) != nil else { return }
            try dependencies.emit(.messageErased(messageID: messageId, conversationID: message.conversationId))
        }
        attachmentSweep.sweep()
    }

    /// Erases every message whose timer ran out (also while this home was
    /// offline: the times are absolute) and removes the files that went
    /// with them. Run at open, after every sync and by the live loop (every
    /// few seconds: so it only reads, through a partial index, unless
    /// something is due). `afterSync` also forgets deletions remembered for
    /// messages that never came, and removes the files of attachments a
    /// deletion in that sync erased. Returns how many messages expired.
    @discardableResult
    func sweepExpired(afterSync: Bool = false) -> Int {
        let now = dependencies.clock.now()
        let store = dependencies.store
        if afterSync {
            try? store.write { store in
                try store.messages.forgetEarlyDeletions(before: now - Int64(clamping: ContentLimits.deletionWindow))
            }
        }
        let due = (try? store.messages.expired(at: now)) ?? []
        var expired = 0
        if !due.isEmpty {
            expired = (try? store.write { store in
                var count = 0
                for id in due {
                    guard let message = try store.messages.message(id: id),
                          try store.messages.erase(messageId: id, as: .expired, at: now) != nil else { continue }
                    try dependencies.emit(.messageErased(messageID: id, conversationID: message.conversationId))
                    count += 1
                }
                return count
            }) ?? 0
        }
        if expired > 0 || afterSync { attachmentSweep.sweep() }
        return expired
    }
}
