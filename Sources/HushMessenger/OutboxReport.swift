/// What one pass over the outbox did.
public struct OutboxReport: Sendable, Equatable {
    public var sent = 0
    public var retrying = 0
    public var failed = 0
    /// When the next pending request is due (ms since 1970), if any.
    public var nextAttemptAt: Int64?
    /// Messages (store row ids) whose deposit the relay answered in this pass
    /// with a refusal (4xx, 429 included) rather than being unreachable: the
    /// CLI reports the two differently.
    public var refusedMessageIDs: Set<Int64> = []
}
