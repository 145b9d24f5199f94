/// What happened to one envelope.
public enum ReceiveOutcome: Sendable, Equatable {
    /// Stored (or recognised as already stored); safe to acknowledge.
    case stored
    /// Could not be decrypted or decoded; kept aside with the reason, and
    /// safe to acknowledge (the relay copy adds nothing).
    case quarantined(reason: String)
    /// Could not be decrypted, and the sender (known, with a session) was
    /// asked to send it again: set aside too, but expected to recover.
    case resendRequested(reason: String)
    /// Could not be used for a cause on our side (no session, a missing
    /// private prekey): kept at the relay, NOT safe to acknowledge, and tried
    /// again by every sync.
    case deferred(reason: String)
    /// A group message or key that came before what opens it (a sender's
    /// key, a membership state), which is on its way: like `deferred`, kept
    /// at the relay and tried again by every sync, but expected, not a fault.
    case waitingForGroupKey(reason: String)
    /// A group message or key for an invitation that waits with its
    /// sender's message request: kept at the relay until the user accepts.
    case waitingForAcceptance(reason: String)
    /// From a blocked contact, or for a group we are no longer in: dropped
    /// unread, safe to acknowledge.
    case dropped
    /// Already processed earlier (at or below the sync cursor).
    case alreadyProcessed
}

/// What `EnvelopeOpener.open` did with a decryptable envelope.
enum OpenResult {
    case applied
    /// The sender is blocked: nothing was decrypted past the sealed layer.
    case droppedFromBlocked
    /// A group message sealed under a state of a group we are no longer in
    /// (`GroupDeparture`): nothing was decrypted past the group envelope.
    case droppedForFormerGroup
}
