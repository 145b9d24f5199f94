
/// What `sync` did.
public struct SyncReport: Sendable, Equatable {
    /// Envelopes stored: messages, and receipts, keys, group changes and other updates.
    public var received = 0
    /// Of what was stored, the messages a person wrote (texts, files, group messages, requests).
    public var newMessages = 0
    /// Set aside with no way to recover them (unknown sender, no session, a replay).
    public var quarantined = 0
    /// Set aside, and their senders asked to send them again (docs/PROTOCOL.md §10.1).
    public var resendRequested = 0
    /// Failed for a cause on our side; left at the relay and tried again next time.
    public var deferred = 0
    /// Group messages (and keys) that arrived before what opens them, which is on its way from
    /// the sender or an admin: left at the relay and tried again by every sync. Not a fault.
    public var waitingForGroupKeys = 0
    /// Group messages (and keys) of an invitation that waits with its sender's message request:
    /// left at the relay until the user accepts it (`hush requests accept`).
    public var waitingForAcceptance = 0
    /// From blocked contacts, or to groups we are no longer in: dropped unread (and acknowledged).
    public var dropped = 0
    public var outbox = OutboxReport()
}
