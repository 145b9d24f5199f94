import HushCrypto

/// A device's name in its account's device list (docs/PROTOCOL.md §20.1):
/// the first 16 bytes of SHA-256("hush/v1/device-id" 0x00 || device key).
/// Derived, never chosen, so a list cannot give one key two ids, and it is
/// the order of the list's entries.
public struct DeviceID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let length = 16

    public let bytes: [UInt8]

    /// The id of `deviceKey`.
    public init(deviceKey: Ed25519.PublicKey) {
        bytes = Array(SHA256.hash(Labels.deviceID + deviceKey.rawRepresentation).prefix(Self.length))
    }

    /// An id as read from the wire; whether it matches its key is the list's check.
    public init(bytes: [UInt8]) throws(ProtocolError) {
        guard bytes.count == Self.length else { throw .malformed(what: "device id (\(Self.length) bytes)") }
        self.bytes = bytes
    }

    /// Unsigned bytes, first byte first: the canonical order of a list's entries.
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public var description: String { Hex.encode(bytes) }
}
