import HushMessenger
import enum HushProtocol.ContentLimits
import enum HushProtocol.ReactionEmoji
import HushStore

/// One message of a conversation, as stored on this device.
public struct Message: Sendable, Equatable, Identifiable {
    /// Whether the account sent the message or received it.
    public enum Direction: String, Sendable {
        /// Received from someone.
        case incoming
        /// Sent by this account.
        case outgoing
    }

    /// What the message carries.
    public enum Kind: String, Sendable {
        /// Text (`text` is the text).
        case text
        /// A file (`text` is a one-line summary; `HushAccount.attachment(of:)` has the file).
        case file
        /// A change of the conversation's disappearing-message timer (`text`
        /// says it, e.g. "set disappearing messages to 1 day"; the sender is who changed it).
        case timerChange
        /// A change of the contact's devices, announced by this client when
        /// their device list changed (`text` says which were linked or
        /// revoked; `HushAccount.devices(ofContact:)` has the list and its
        /// fingerprint). Device names in it are the contact's words.
        case deviceListChange
    }

    /// Where an outgoing message stands: pending (sealed and queued, the relay
    /// does not have it yet) → sent (the relay has it) → delivered → read;
    /// or failed (the relay refused it for good). Incoming messages are `read`
    /// once marked read, `delivered` before.
    public enum Status: String, Sendable, CaseIterable {
        /// Sealed and queued; the relay does not have it yet.
        case pending
        /// The relay has it.
        case sent
        /// The recipient's device has it.
        case delivered
        /// The recipient read it (or, for an incoming message, the user did).
        case read
        /// The relay refused it for good.
        case failed
    }

    /// The message's id.
    public let id: MessageID
    /// The conversation it is in.
    public let conversation: ConversationID
    /// Whether it was sent or received.
    public let direction: Direction
    /// Text or file.
    public let kind: Kind
    /// The sender's address (hush1…): the account's own for outgoing messages.
    public let senderAddress: String
    /// The text (for a file: a one-line summary of it).
    public let text: String
    /// Where the message stands.
    public let status: Status
    /// When the message was written, in milliseconds since 1970 (the sender's clock).
    public let createdAt: Int64
    /// When the relay accepted it, in milliseconds since 1970, once known.
    public let relayTimestamp: Int64?
    /// When it was delivered, in milliseconds since 1970, once known.
    public let deliveredAt: Int64?
    /// When it was read (for an incoming message: marked read by the user), once known.
    public let readAt: Int64?
    /// Unique across devices: the id receipts and the relay's records use.
    public let clientMessageID: String
    /// The relay's id of the envelope that carried it (received messages), or
    /// that the relay gave it when it took it (sent messages), once known.
    public let serverID: Int64?
    /// For a reply: the message it quotes. Nil for any other message.
    public let replyTo: QuotedMessage?
    /// The reactions standing on the message, oldest first: one per person
    /// (yours included), the latest each chose. Empty in a conversation
    /// list's `lastMessage`; `HushAccount.message(_:)` and the room's
    /// history carry them.
    public let reactions: [Reaction]
    /// When the text shown was written by an edit of its author, in
    /// milliseconds since 1970 (the author's clock); nil for a message never
    /// edited. `text` is then the edited text: `Room.editHistory(of:)` has
    /// the versions before it.
    public let editedAt: Int64?
    /// Whether the message was edited by its author ("edited" beside it).
    public var isEdited: Bool { editedAt != nil }
    /// Whether the message was deleted (by the user here, or by its author
    /// for everyone): its text, file and search entry are gone and `text`
    /// is empty; history keeps it in place to show "deleted".
    public let isDeleted: Bool
    /// The disappearing timer it was sent under, in seconds; nil for none.
    public let expiresAfter: Int64?
    /// When it disappears, in milliseconds since 1970: set once it was read
    /// (an outgoing one: once a read receipt came). Nil while its timer has
    /// not started, or without one.
    public let expiresAt: Int64?

    init(_ stored: StoredMessage, decorations: MessageDecorations? = nil) {
        id = MessageID(rawValue: stored.id)
        conversation = ConversationID(rawValue: stored.conversationId)
        direction = stored.direction == .incoming ? .incoming : .outgoing
        kind = switch stored.contentType {
        case "attachment": .file
        case HushMessenger.DisappearingTimer.contentType: .timerChange
        case HushMessenger.DeviceListNotice.contentType: .deviceListChange
        default: .text
        }
        senderAddress = stored.sender
        text = stored.body
        status = Status(rawValue: stored.status.rawValue) ?? .failed
        createdAt = stored.createdAt
        relayTimestamp = stored.relayTimestamp
        deliveredAt = stored.deliveredAt
        readAt = stored.readAt
        clientMessageID = stored.clientMessageId
        serverID = stored.serverId
        isDeleted = stored.isErased
        expiresAfter = stored.expiresAfter
        expiresAt = stored.expiresAt
        replyTo = stored.replyTo.map { clientID in
            QuotedMessage(message: decorations?.quoted[clientID].map { MessageID(rawValue: $0.id) }, clientMessageID: clientID)
        }
        editedAt = stored.editedAt
        reactions = (decorations?.reactions[stored.id] ?? []).map { reaction in
            Reaction(emoji: reaction.emoji, reactorAddress: reaction.reactor,
                     contact: decorations?.contactIDs[reaction.reactor].map(ContactID.init(rawValue:)),
                     isYou: reaction.reactor == decorations?.ownAddress, reactedAt: reaction.sentAt)
        }
    }
}

/// The message a reply quotes.
public struct QuotedMessage: Sendable, Equatable {
    /// The quoted message's id, when it is stored here in the same
    /// conversation; nil when this device does not have it (it is older
    /// than the device, was never received, or was deleted).
    public let message: MessageID?
    /// The quoted message's `Message.clientMessageID`, always known.
    public let clientMessageID: String
}

/// One person's reaction to a message.
public struct Reaction: Sendable, Equatable {
    /// The emoji: one character (grapheme cluster) of at most 32 bytes, as
    /// sent. Peer-chosen text: sanitise it before showing it on a terminal.
    public let emoji: String
    /// The reactor's address (hush1…): the account's own for `isYou`.
    public let reactorAddress: String
    /// The reactor's contact, when they are one (a group member may not be).
    public let contact: ContactID?
    /// Whether the reaction is this account's own.
    public let isYou: Bool
    /// When they reacted, in milliseconds since 1970 (their clock).
    public let reactedAt: Int64

    /// Whether `emoji` can be sent as a reaction: one character (grapheme
    /// cluster) of 1 to 32 bytes of UTF-8, with no control or bidirectional
    /// formatting character (docs/PROTOCOL.md §10.5). `Room.react(to:with:)`
    /// refuses anything else; an app can check before offering to send.
    public static func isAcceptableEmoji(_ emoji: String) -> Bool { ReactionEmoji.isAcceptable(emoji) }

    /// The most bytes of UTF-8 a reaction's emoji may have.
    public static let maxEmojiBytes = ContentLimits.maxReactionLength
}

/// One version of an edited message's text: the original or an edit.
public struct MessageVersion: Sendable, Equatable {
    /// The text of this version. Peer-chosen for a received message:
    /// sanitise it before showing it on a terminal.
    public let text: String
    /// When the author wrote it, in milliseconds since 1970 (their clock).
    public let writtenAt: Int64
    /// Whether this is the original text (the others are edits).
    public let isOriginal: Bool

    /// How long after sending a message its author may edit it, in
    /// milliseconds (48 hours; docs/PROTOCOL.md §10.6).
    public static let editWindow = Int64(ContentLimits.editWindow)
    /// The most edits a message takes.
    public static let maxEdits = ContentLimits.maxEditsPerMessage
}

/// A page of a conversation's history, oldest first.
public struct HistoryPage: Sendable, Equatable {
    /// The page's messages, oldest first.
    public let messages: [Message]
    /// Whether older messages exist before the first of this page: pass
    /// `messages.first?.id` as `before` to read them.
    public let hasOlder: Bool
}
