public enum OutboxStatus: String, Sendable, CaseIterable {
    case draft, pending, sent, failed
}

/// A message request: the sealed envelope waiting for the relay's 201.
/// `requestId` doubles as the idempotency key the relay de-duplicates on.
public struct OutboxItem: Sendable, Equatable {
    public let requestId: String
    public let messageId: Int64?
    public let conversationId: Int64
    /// The sealed envelope only, never plaintext.
    public let payload: [UInt8]
    public let status: OutboxStatus
    public let failCount: Int
    public let nextAttemptAt: Milliseconds
    public let lastSentAt: Milliseconds?
    public let lastError: String?
    public let createdAt: Milliseconds
}
