/// What every HushKit id is: a store id of one kind, so that a contact's id
/// cannot be passed where a message's is wanted.
///
/// Ids are local to one account: another account (or another device) numbers
/// its contacts, conversations and messages its own way. They stay valid
/// while the thing they name is stored, across renames and restarts.
public protocol HushIdentifier: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The number the local store gives the thing.
    var rawValue: Int64 { get }
    /// Wraps a number read back from a previous `rawValue` (one the app stored).
    init(rawValue: Int64)
}

extension HushIdentifier {
    /// The number, as `history --json` and `send --json` print it.
    public var description: String { String(rawValue) }

    /// Decodes the bare number.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(Int64.self))
    }

    /// Encodes the bare number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A contact: someone the account added, or a stranger whose message request waits.
public struct ContactID: HushIdentifier {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// A conversation: with one contact, or a group's.
public struct ConversationID: HushIdentifier {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// A message, sent or received.
public struct MessageID: HushIdentifier {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}

/// A file sent or received with a message.
public struct AttachmentID: HushIdentifier {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
}
