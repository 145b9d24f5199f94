import HushCrypto

/// A user's long-term public identity: an Ed25519 key. Everything else a user
/// publishes (prekeys) is signed by it, and the user's address encodes it, so
/// a relay cannot substitute keys without detection.
public struct IdentityKey: Sendable, Hashable, CustomStringConvertible {
    public static let length = Ed25519.publicKeyLength

    public let signingKey: Ed25519.PublicKey

    public init(_ signingKey: Ed25519.PublicKey) {
        self.signingKey = signingKey
    }

    public init(rawRepresentation: [UInt8]) throws(ProtocolError) {
        do {
            self.signingKey = try Ed25519.PublicKey(rawRepresentation: rawRepresentation)
        } catch {
            throw .malformed(what: "identity key (expected \(IdentityKey.length) bytes)")
        }
    }

    public var rawRepresentation: [UInt8] { signingKey.rawRepresentation }

    public var description: String { "IdentityKey(\(Hex.encode(rawRepresentation)))" }
}
