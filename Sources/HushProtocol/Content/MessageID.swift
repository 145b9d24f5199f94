import HushCrypto

/// A client message id: 16 random bytes the sender picks for every content
/// message; receipts refer to messages by it.
public struct MessageID: Sendable, Hashable, CustomStringConvertible {
    public static let length = 16
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(ProtocolError) {
        guard bytes.count == MessageID.length else { throw .malformed(what: "message id") }
        self.bytes = bytes
    }

    public static func random(using source: any RandomSource = SystemRandom()) -> MessageID {
        try! MessageID(bytes: source.bytes(length))
    }

    public var description: String { Hex.encode(bytes) }
}
