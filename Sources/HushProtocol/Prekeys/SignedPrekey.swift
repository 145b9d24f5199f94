import HushCrypto

/// The public half of a prekey with its identity signature: what a relay
/// stores and hands out. The signature covers
///
///     "hush/v1/prekey" || 0x00 || kind (1 byte) || id (4 bytes, big-endian) || public key
///
/// (see docs/PROTOCOL.md, "Prekey signatures").
public struct SignedPrekey: Sendable, Hashable {
    public static let signatureContext = Array("hush/v1/prekey".utf8) + [0x00]

    public let kind: PrekeyKind
    public let id: UInt32
    public let publicKey: [UInt8]
    public let signature: [UInt8]

    /// Checks lengths only; call `verify(by:)` before trusting the key.
    public init(kind: PrekeyKind, id: UInt32, publicKey: [UInt8], signature: [UInt8]) throws(ProtocolError) {
        guard publicKey.count == kind.publicKeyLength else {
            throw .malformed(what: "prekey \(id): public key of \(publicKey.count) bytes, expected \(kind.publicKeyLength)")
        }
        guard signature.count == Ed25519.signatureLength else {
            throw .malformed(what: "prekey \(id): signature of \(signature.count) bytes, expected \(Ed25519.signatureLength)")
        }
        self.kind = kind
        self.id = id
        self.publicKey = publicKey
        self.signature = signature
    }

    /// Signs `publicKey` as a prekey of `kind` with `id`.
    public static func sign(kind: PrekeyKind, id: UInt32, publicKey: [UInt8], with identity: Ed25519.PrivateKey) throws(ProtocolError) -> SignedPrekey {
        let message = signedMessage(kind: kind, id: id, publicKey: publicKey)
        return try SignedPrekey(kind: kind, id: id, publicKey: publicKey, signature: identity.signature(for: message))
    }

    /// The exact bytes the signature covers.
    public static func signedMessage(kind: PrekeyKind, id: UInt32, publicKey: [UInt8]) -> [UInt8] {
        var message = signatureContext
        message.reserveCapacity(message.count + 5 + publicKey.count)
        message.append(kind.rawValue)
        message.append(contentsOf: withUnsafeBytes(of: id.bigEndian, Array.init))
        message.append(contentsOf: publicKey)
        return message
    }

    /// Throws unless `identity` signed this prekey as its kind and id.
    public func verify(by identity: IdentityKey) throws(ProtocolError) {
        let message = SignedPrekey.signedMessage(kind: kind, id: id, publicKey: publicKey)
        guard identity.signingKey.isValidSignature(signature, for: message) else {
            throw .invalidSignature(what: "\(kind) prekey \(id)")
        }
    }
}
