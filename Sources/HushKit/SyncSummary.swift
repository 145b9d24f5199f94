import HushMessenger

/// What one `HushAccount.sync()` did.
public struct SyncSummary: Sendable, Equatable {
    /// Envelopes taken in: messages, and receipts, keys, group changes and
    /// other updates (`newMessages` counts the messages alone).
    public let received: Int
    /// New messages a person wrote (texts, files, group messages, message
    /// requests) stored by this sync, in every conversation.
    public let newMessages: Int
    /// Envelopes set aside because they could not be decrypted; where the
    /// sender can help, they were asked to send again.
    public let setAside: Int
    /// Of `setAside`, the envelopes whose senders were asked to send them
    /// again (they arrive with a later sync); the others cannot be recovered.
    public let askedToResend: Int
    /// Left at the relay for a cause on this device (the store could not take
    /// them): tried again by the next sync.
    public let deferred: Int
    /// Group messages that arrived before their keys: tried again by every sync. Not a fault.
    public let waitingForGroupKeys: Int
    /// Group messages of an invitation that waits with its sender's message
    /// request: opened once the request is accepted.
    public let waitingForAcceptance: Int
    /// Dropped unread: their sender is blocked, or they were written to a
    /// group this account is no longer in by a member who had not learned it yet.
    public let dropped: Int
    /// Outgoing messages the relay took in this sync.
    public let sent: Int
    /// Outgoing messages still waiting for the relay (tried again with backoff).
    public let retrying: Int
    /// Outgoing messages the relay refused for good.
    public let failed: Int
    /// Message requests waiting for the user's decision after this sync.
    public let pendingRequests: Int

    init(_ report: SyncReport, pendingRequests: Int) {
        received = report.received
        newMessages = report.newMessages
        setAside = report.quarantined + report.resendRequested
        askedToResend = report.resendRequested
        deferred = report.deferred
        waitingForGroupKeys = report.waitingForGroupKeys
        waitingForAcceptance = report.waitingForAcceptance
        dropped = report.dropped
        sent = report.outbox.sent
        retrying = report.outbox.retrying
        failed = report.outbox.failed
        self.pendingRequests = pendingRequests
    }
}
