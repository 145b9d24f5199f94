import HushStore

/// What the pipeline tells a live view (`hush chat`, `hush listen`), after
/// the change it tells of has committed.
public enum MessengerEvent: Sendable, Equatable {
    /// A new message was stored: an incoming one, or a copy of what another
    /// device of the account sent (outgoing, PROTOCOL §20.11).
    case received(StoredMessage, contact: String)
    /// A stranger's message was stored as a message request (nothing sent back).
    case request(StoredMessage, contact: String, contactID: Int64)
    /// An outgoing message changed status (sent, delivered, read, failed);
    /// `contact` is the contact's or the group's name, `messageID` and
    /// `conversationID` the store's ids.
    case statusChanged(clientMessageID: String, status: MessageStatus, contact: String, messageID: Int64, conversationID: Int64)
    /// The contact started or stopped typing.
    case typing(contact: String, active: Bool, contactID: Int64)
    /// Something arrived that could not be decrypted; it was set aside.
    /// `senderAsked`: its sender was asked to send it again (a decryption
    /// error, docs/PROTOCOL.md §10.1), so what it held should still arrive,
    /// as after crossed first messages with a newly linked device.
    case quarantined(reason: String, senderAsked: Bool)
    /// The contact could not decrypt an outgoing message; it was sealed and queued again.
    case resent(clientMessageID: String, contact: String, messageID: Int64)
    /// A member's message in a group was stored (or, outgoing, a copy of
    /// what another device of the account sent there, `member` "you").
    case groupReceived(StoredMessage, group: String, member: String)
    /// Someone's reaction to a message was set, changed or taken away
    /// (theirs or, from another process of this account, ours).
    case reactionChanged(messageID: Int64, conversationID: Int64)
    /// A message's text was edited by its author (the edit shown now).
    case messageEdited(messageID: Int64, conversationID: Int64)
    /// A message was erased: deleted (here, or by its author for everyone)
    /// or expired (docs/PROTOCOL.md §10.7).
    case messageErased(messageID: Int64, conversationID: Int64)
    /// A conversation's disappearing-message timer changed (seconds, nil = off).
    case disappearingTimerChanged(conversationID: Int64, seconds: Int64?)
    /// A received file's download ended: `ready` (every chunk and the digest
    /// checked, kept encrypted) or `failed` (it did not verify).
    case attachmentChanged(attachmentID: Int64, messageID: Int64, conversationID: Int64, state: AttachmentState)
    /// A group's membership or name changed (or we were removed).
    case groupChanged(group: String, conversationID: Int64)
    /// The live connection to the relay went up (after catching up with the mailbox) or down.
    case connection(online: Bool)
    /// This subscriber fell behind and `count` events were not delivered to
    /// it; everything they told of is stored: read what you show again.
    case missed(count: Int)
    /// A sync of the live connection failed (our database could not store
    /// what arrived, or the relay failed mid-way): nothing it could not
    /// store was acknowledged, so the relay keeps it and the next push or
    /// reconnect tries again. Told once per kind of failure until a sync
    /// succeeds.
    case syncFailed(LiveSyncFailure)
}

/// Why a live sync failed: the error itself, for the front end to word
/// (two failures are the same when they read the same).
public struct LiveSyncFailure: Sendable, Equatable, CustomStringConvertible {
    public let error: any Error

    public init(_ error: any Error) { self.error = error }

    public var description: String { String(describing: error) }

    public static func == (left: LiveSyncFailure, right: LiveSyncFailure) -> Bool { left.description == right.description }
}
