import HushCrypto

/// Binary forms of signed prekeys and bundles, for uploading to and fetching
/// from the relay (docs/PROTOCOL.md, "Prekey wire format"):
///
///     signed prekey = kind (1) || id (4) || public key (32 or 1184, by kind) || signature (64)
///     bundle        = 0x01 || identity key (32) || signed prekey (kind 1) || KEM prekey (kind 3 or 4)
///                     || one-time flag (1: 0x00/0x01) || [one-time prekey (kind 2)]
///
/// Decoding checks lengths and kinds only; callers verify signatures
/// (`PrekeyBundle.verify(for:)`) before use.
extension SignedPrekey {
    public var encoded: [UInt8] {
        var out: [UInt8] = [kind.rawValue]
        out.appendBigEndian(id)
        out += publicKey
        out += signature
        return out
    }

    public init(encoded bytes: [UInt8]) throws(ProtocolError) {
        var reader = ByteReader(bytes, what: "signed prekey")
        self = try SignedPrekey.decode(from: &reader)
        try reader.finish()
    }

    static func decode(from reader: inout ByteReader) throws(ProtocolError) -> SignedPrekey {
        guard let kind = PrekeyKind(rawValue: try reader.u8()) else { throw .malformed(what: "prekey kind") }
        let id = try reader.u32()
        let publicKey = try reader.read(kind.publicKeyLength)
        let signature = try reader.read(Ed25519.signatureLength)
        return try SignedPrekey(kind: kind, id: id, publicKey: publicKey, signature: signature)
    }
}

extension PrekeyBundle {
    public static let wireVersion: UInt8 = 0x01

    public var encoded: [UInt8] {
        var out: [UInt8] = [PrekeyBundle.wireVersion]
        out += identityKey.rawRepresentation
        out += signedPrekey.encoded
        out += kemPrekey.encoded
        if let oneTimePrekey {
            out.append(0x01)
            out += oneTimePrekey.encoded
        } else {
            out.append(0x00)
        }
        return out
    }

    public init(encoded bytes: [UInt8]) throws(ProtocolError) {
        var reader = ByteReader(bytes, what: "prekey bundle")
        let version = try reader.u8()
        guard version == PrekeyBundle.wireVersion else { throw .unsupportedVersion(version) }
        let identity = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
        let signed = try SignedPrekey.decode(from: &reader)
        let kem = try SignedPrekey.decode(from: &reader)
        let oneTime: SignedPrekey?
        switch try reader.u8() {
        case 0x00: oneTime = nil
        case 0x01: oneTime = try SignedPrekey.decode(from: &reader)
        default: throw .malformed(what: "prekey bundle one-time flag")
        }
        try reader.finish()
        try self.init(identityKey: identity, signedPrekey: signed, kemPrekey: kem, oneTimePrekey: oneTime)
    }
}
