import HushStore

/// What the pipeline tells a live view (`hush chat`, `hush listen`), after
/// the change it tells of has committed.
public enum MessengerEvent: Sendable, Equatable {
    /// A new incoming message was stored.
    case received(StoredMessage, contact: String)
    /// A stranger's message was stored as a message request (nothing sent back).
    case request(StoredMessage, contact: String)
    /// An outgoing message changed status (sent, delivered, read, failed).
    case statusChanged(clientMessageID: String, status: MessageStatus, contact: String)
    /// The contact started or stopped typing.
    case typing(contact: String, active: Bool)
    /// Something arrived that could not be decrypted; it was set aside.
    case quarantined(reason: String)
    /// The contact could not decrypt an outgoing message; it was sealed and queued again.
    case resent(clientMessageID: String, contact: String)
    /// A member's message in a group was stored.
    case groupReceived(StoredMessage, group: String, member: String)
    /// A group's membership or name changed (or we were removed).
    case groupChanged(group: String)
    /// The live connection to the relay went up (after catching up with the mailbox) or down.
    case connection(online: Bool)
    /// This subscriber fell behind and `count` events were not delivered to
    /// it; everything they told of is stored: read what you show again.
    case missed(count: Int)
}
