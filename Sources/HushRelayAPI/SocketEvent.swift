/// Frames on `/v1/socket`, JSON text with a `type` field.
///
/// Relay to client:
///   `{ "type": "message", "message": MailboxMessage }` — a new envelope was deposited;
///   `{ "type": "ephemeral", "envelope": "<b64>" }` — a typing indicator or the like;
///   `{ "type": "error", "error": { "code", "message" } }` — a frame was refused.
/// Client to relay:
///   `{ "type": "ephemeral", "recipient": "<b64 identity>", "credential": "<b64>", "envelope": "<b64>" }`;
///   `{ "type": "ack", "messageIDs": [UInt64] }` — as `POST …/ack` for the socket's own mailbox, unanswered.
public enum SocketServerEvent: Codable, Sendable, Equatable {
    case message(MailboxMessage)
    case ephemeral(Base64Bytes)
    case error(RelayErrorBody.Detail)

    enum CodingKeys: String, CodingKey { case type, message, envelope, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(String.self, forKey: .type) {
        case "message": self = .message(try container.decode(MailboxMessage.self, forKey: .message))
        case "ephemeral": self = .ephemeral(try container.decode(Base64Bytes.self, forKey: .envelope))
        case "error": self = .error(try container.decode(RelayErrorBody.Detail.self, forKey: .error))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown event type \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .message(message):
            try container.encode("message", forKey: .type)
            try container.encode(message, forKey: .message)
        case let .ephemeral(envelope):
            try container.encode("ephemeral", forKey: .type)
            try container.encode(envelope, forKey: .envelope)
        case let .error(detail):
            try container.encode("error", forKey: .type)
            try container.encode(detail, forKey: .error)
        }
    }
}

/// A client's ephemeral envelope (typing indicators and the like).
public struct SocketClientFrame: Codable, Sendable, Equatable {
    public var type: String
    public var recipient: Base64Bytes
    public var credential: Base64Bytes
    public var envelope: Base64Bytes

    public init(recipient: Base64Bytes, credential: Base64Bytes, envelope: Base64Bytes) {
        self.type = "ephemeral"
        self.recipient = recipient
        self.credential = credential
        self.envelope = envelope
    }
}

/// A client's acknowledgement over its socket: the same as `POST …/ack` for
/// the socket's own mailbox, without an answer (a lost one is made again by
/// the client's next sync, which acknowledges what it already processed).
public struct SocketAckFrame: Codable, Sendable, Equatable {
    public var type: String
    public var messageIDs: [UInt64]

    public init(messageIDs: [UInt64]) {
        self.type = "ack"
        self.messageIDs = messageIDs
    }
}

/// The `type` of a client frame, read first to choose the frame's shape.
public struct SocketClientFrameType: Decodable, Sendable {
    public var type: String
}
