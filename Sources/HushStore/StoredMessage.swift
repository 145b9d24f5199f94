import HushDatabase

public enum MessageDirection: String, Sendable {
    case incoming = "in"
    case outgoing = "out"
}

/// pending → sent (the relay has it) → delivered → read, or failed; the
/// moves an outgoing message may make are `OutgoingStatusMachine`.
public enum MessageStatus: String, Sendable, CaseIterable {
    case pending, sent, delivered, read, failed

    /// How far a recipient's receipts took a message: read above delivered
    /// above everything else. A recipient's status never moves down it.
    public var receiptRank: Int {
        switch self {
        case .read: 2
        case .delivered: 1
        case .pending, .sent, .failed: 0
        }
    }
}

/// A message as the pipeline hands it to the store.
public struct NewMessage: Sendable {
    public var conversationId: Int64
    /// The relay's id; nil while an outgoing message is pending.
    public var serverId: Int64?
    /// Unique per message across devices: a second copy is recognised and skipped.
    public var clientMessageId: String
    public var direction: MessageDirection
    public var sender: String
    public var body: String
    public var contentType: String
    public var status: MessageStatus
    public var createdAt: Milliseconds
    public var relayTimestamp: Milliseconds?
    /// For a reply: the client message id of the message it quotes (which
    /// this device may not have).
    public var replyTo: String?
    /// Seconds the message lives once read (docs/PROTOCOL.md §10.7), when
    /// it was sent under a disappearing-message timer.
    public var expiresAfter: Int64?
    /// A notice of this client's that no envelope carried (a device list
    /// read from a directory): placed right after what its conversation
    /// holds (`MessagePosition.local(after:)`), so what arrives later comes
    /// after it, not after everything as a pending message is.
    public var isLocalNotice = false

    public init(conversationId: Int64, serverId: Int64? = nil, clientMessageId: String, direction: MessageDirection,
                sender: String, body: String, contentType: String = "text/plain", status: MessageStatus,
                createdAt: Milliseconds, relayTimestamp: Milliseconds? = nil, replyTo: String? = nil, expiresAfter: Int64? = nil) {
        self.conversationId = conversationId
        self.serverId = serverId
        self.clientMessageId = clientMessageId
        self.direction = direction
        self.sender = sender
        self.body = body
        self.contentType = contentType
        self.status = status
        self.createdAt = createdAt
        self.relayTimestamp = relayTimestamp
        self.replyTo = replyTo
        self.expiresAfter = expiresAfter
    }
}

/// A message read back from the store.
public struct StoredMessage: Sendable, Equatable {
    public let id: Int64
    public let conversationId: Int64
    public let serverId: Int64?
    public let clientMessageId: String
    public let direction: MessageDirection
    public let sender: String
    public let body: String
    public let contentType: String
    public let status: MessageStatus
    public let createdAt: Milliseconds
    public let relayTimestamp: Milliseconds?
    public let deliveredAt: Milliseconds?
    public let readAt: Milliseconds?
    /// The sort key (see `MessagePosition`).
    public let position: Int64
    /// For a reply: the client message id of the message it quotes.
    public let replyTo: String?
    /// When the text shown (`body`) was written by an edit, by the author's
    /// clock; nil for a message never edited.
    public let editedAt: Milliseconds?
    /// When the message was erased (deleted, or expired): its body is empty
    /// and its `contentType` says which (`erasedContentTypes`).
    public let deletedAt: Milliseconds?
    /// Seconds the message lives once read, when sent under a timer.
    public let expiresAfter: Int64?
    /// When the message expires: set when it is read (incoming) or its
    /// first read receipt arrives (outgoing).
    public let expiresAt: Milliseconds?

    /// Whether the message was deleted or expired (a tombstone).
    public var isErased: Bool { deletedAt != nil }

    static let columnNames = ["id", "conversation_id", "server_id", "client_message_id", "direction", "sender", "body",
                              "content_type", "status", "created_at", "relay_timestamp", "delivered_at", "read_at", "position", "reply_to",
                              "edited_at", "deleted_at", "expires_after", "expires_at"]
    static let columns = columns(prefix: "")

    static func columns(prefix: String) -> String {
        columnNames.map { prefix + $0 }.joined(separator: ", ")
    }

    /// Decodes a row selected with `columns` starting at `offset`.
    init(row: Row, offset: Int = 0) throws {
        id = try row.get(offset)
        conversationId = try row.get(offset + 1)
        serverId = try row.get(offset + 2)
        clientMessageId = try row.get(offset + 3)
        direction = try MessageDirection(rawValue: row.get(offset + 4)) ?? .incoming
        sender = try row.get(offset + 5)
        body = try row.get(offset + 6)
        contentType = try row.get(offset + 7)
        status = try MessageStatus(rawValue: row.get(offset + 8)) ?? .failed
        createdAt = try row.get(offset + 9)
        relayTimestamp = try row.get(offset + 10)
        deliveredAt = try row.get(offset + 11)
        readAt = try row.get(offset + 12)
        position = try row.get(offset + 13)
        replyTo = try row.get(offset + 14)
        editedAt = try row.get(offset + 15)
        deletedAt = try row.get(offset + 16)
        expiresAfter = try row.get(offset + 17)
        expiresAt = try row.get(offset + 18)
    }
}

/// What `insert` did with a message.
public enum InsertResult: Sendable, Equatable {
    case inserted(id: Int64)
    /// A message with the same client message id was already stored.
    case duplicate(existingId: Int64)

    public var id: Int64 {
        switch self {
        case let .inserted(id), let .duplicate(id): return id
        }
    }
}
