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

    init(_ stored: StoredMessage) {
        id = MessageID(rawValue: stored.id)
        conversation = ConversationID(rawValue: stored.conversationId)
        direction = stored.direction == .incoming ? .incoming : .outgoing
        kind = stored.contentType == "attachment" ? .file : .text
        senderAddress = stored.sender
        text = stored.body
        status = Status(rawValue: stored.status.rawValue) ?? .failed
        createdAt = stored.createdAt
        relayTimestamp = stored.relayTimestamp
        deliveredAt = stored.deliveredAt
        readAt = stored.readAt
        clientMessageID = stored.clientMessageId
        serverID = stored.serverId
    }
}

/// A page of a conversation's history, oldest first.
public struct HistoryPage: Sendable, Equatable {
    /// The page's messages, oldest first.
    public let messages: [Message]
    /// Whether older messages exist before the first of this page: pass
    /// `messages.first?.id` as `before` to read them.
    public let hasOlder: Bool
}
