import HushProtocol

/// A `SignedPrekey` on the wire: `{ "kind": 2, "id": 7, "publicKey": "<b64>", "signature": "<b64>" }`.
/// `kind` is `PrekeyKind.rawValue` (1 signed X25519, 2 one-time X25519,
/// 3 last-resort KEM, 4 one-time KEM).
public struct SignedPrekeyDTO: Codable, Sendable, Hashable {
    public var kind: UInt8
    public var id: UInt32
    public var publicKey: Base64Bytes
    public var signature: Base64Bytes

    public init(_ prekey: SignedPrekey) {
        self.kind = prekey.kind.rawValue
        self.id = prekey.id
        self.publicKey = Base64Bytes(prekey.publicKey)
        self.signature = Base64Bytes(prekey.signature)
    }

    /// The protocol value; throws when the kind is unknown or a length is wrong.
    /// Signatures are checked separately with `SignedPrekey.verify(by:)`.
    public func prekey() throws(ProtocolError) -> SignedPrekey {
        guard let kind = PrekeyKind(rawValue: kind) else { throw .malformed(what: "prekey kind \(self.kind)") }
        return try SignedPrekey(kind: kind, id: id, publicKey: publicKey.bytes, signature: signature.bytes)
    }
}
