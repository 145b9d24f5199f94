import HushStore

/// An envelope from the relay that could not be decrypted and was set
/// aside (kept, never shown as a message) instead of being dropped.
public struct SetAsideEnvelope: Sendable, Equatable {
    /// The relay's id for it, when it came from a relay mailbox.
    public let relayID: Int64?
    /// Why it could not be opened.
    public let reason: String
    /// Its size in bytes.
    public let byteCount: Int

    init(_ entry: QuarantineRepository.Entry) {
        relayID = entry.serverId
        reason = entry.reason
        byteCount = entry.envelope.count
    }
}
