import HushMessenger
import HushStore

/// What waits for the relay, and what the store holds.
extension HushAccount {
    /// Sealed messages the relay has not taken yet: pending ones (retried
    /// with backoff) and failed ones (refused for good, kept until retried).
    public func queuedMessages() async throws(HushError) -> [QueuedMessage] {
        try await guarded { try await messenger.outbox().map(QueuedMessage.init) }
    }

    /// Hands every pending and failed message to the relay now, without
    /// waiting for its backoff; with `requestID`, only the one whose request
    /// id starts with it (`QueuedMessage.requestID`).
    ///
    /// - Throws: `HushError` of kind `notFound` when no queued message has such a request id.
    public func retryQueued(requestID: String? = nil) async throws(HushError) -> DeliveryAttempt {
        try await guarded { DeliveryAttempt(try await messenger.retry(requestID: requestID)) }
    }

    /// Hands the relay what is due in the queue, once (the backoff of
    /// messages that failed stays as it is). `startLive()` and `sync()` do
    /// this on their own; an app that is about to stop calls it to give what
    /// it just sent a last chance to leave.
    public func sendQueued() async -> DeliveryAttempt {
        DeliveryAttempt(await messenger.flushOutbox())
    }

    /// How much each conversation's history takes on disk, largest first.
    public func storageUsage() async throws(HushError) -> [ConversationStorage] {
        try await guarded {
            try await messenger.storageUsage().map {
                ConversationStorage(conversation: ConversationID(rawValue: $0.conversationId), title: $0.title,
                                    messageCount: $0.messageCount, bytes: $0.bytes)
            }
        }
    }

    /// Every file sent and received, oldest first.
    public func attachments() async throws(HushError) -> [Attachment] {
        try await guarded { try await messenger.attachmentList().map { Attachment($0.attachment, on: messenger) } }
    }
}

/// A sealed message waiting for the relay. It holds no plaintext: the
/// message's text is in `HushAccount.message(_:)`.
public struct QueuedMessage: Sendable, Equatable {
    /// Whether the message is still tried or was refused.
    public enum State: String, Sendable {
        /// Tried again with backoff until the relay takes it.
        case pending
        /// The relay refused it for good; `HushAccount.retryQueued()` tries once more.
        case failed
    }

    /// The message, when the queued envelope is one (receipts and other control messages have none).
    public let message: MessageID?
    /// The conversation it goes to.
    public let conversation: ConversationID
    /// Whether it is still tried.
    public let state: State
    /// How many attempts failed so far.
    public let failedAttempts: Int
    /// When the next attempt is due, in milliseconds since 1970.
    public let nextAttemptAt: Int64
    /// Why the last attempt failed, if one did.
    public let lastError: String?
    /// The id the relay knows the deposit by: random, and the same on every
    /// attempt the queue makes, so the relay keeps one copy however often it
    /// is tried. `HushAccount.retryQueued(requestID:)` may seal a message
    /// again, under a new request id.
    public let requestID: String
    /// The sealed envelope's size in bytes.
    public let size: Int

    init(_ item: OutboxItem) {
        message = item.messageId.map(MessageID.init(rawValue:))
        conversation = ConversationID(rawValue: item.conversationId)
        state = item.status == .failed ? .failed : .pending
        failedAttempts = item.failCount
        nextAttemptAt = item.nextAttemptAt
        lastError = item.lastError
        requestID = item.requestId
        size = item.payload.count
    }
}

/// What one attempt to hand the queue to the relay did.
public struct DeliveryAttempt: Sendable, Equatable {
    /// Messages the relay took.
    public let sent: Int
    /// Messages still waiting (the relay could not be reached, or asked to wait).
    public let retrying: Int
    /// Messages the relay refused for good.
    public let failed: Int
    /// The messages the relay refused in this attempt (for good, or for now
    /// as when it limits the rate), as opposed to not being reached.
    public let refused: Set<MessageID>
    /// When the next waiting message is due, in milliseconds since 1970, if one waits.
    public let nextAttemptAt: Int64?

    init(_ report: OutboxReport) {
        sent = report.sent
        retrying = report.retrying
        failed = report.failed
        refused = Set(report.refusedMessageIDs.map(MessageID.init(rawValue:)))
        nextAttemptAt = report.nextAttemptAt
    }
}

/// How much one conversation's history takes on disk (estimated from the
/// stored bytes; the database's own overhead and the search index come on top).
public struct ConversationStorage: Sendable, Equatable {
    /// The conversation.
    public let conversation: ConversationID
    /// The contact's or the group's name.
    public let title: String
    /// Messages stored.
    public let messageCount: Int
    /// Bytes they take.
    public let bytes: Int64
}
