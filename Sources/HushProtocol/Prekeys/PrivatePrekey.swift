import HushCrypto

/// The private half of a published prekey, as the store keeps it until the
/// prekey is used (one-time kinds) or rotated out (signed and last-resort).
///
/// Serialized (versioned, for the store):
///
///     0x01 || kind (1) || id (4, big-endian) || secret (32: X25519 scalar; 64: ML-KEM seed d||z) || signature (64)
///
/// The public key is recomputed from the secret on restore.
public struct PrivatePrekey: Sendable {
    public static let serializationVersion: UInt8 = 0x01

    public let signed: SignedPrekey
    /// X25519 scalar (32 bytes) or ML-KEM-768 seed (64 bytes).
    public let secret: SecureBytes

    public var kind: PrekeyKind { signed.kind }
    public var id: UInt32 { signed.id }

    static func secretLength(_ kind: PrekeyKind) -> Int {
        switch kind {
        case .signedX25519, .oneTimeX25519: return X25519.keyLength
        case .lastResortKEM, .oneTimeKEM: return MLKEM.seedLength
        }
    }

    /// Generates a prekey of `kind` and signs it with `identity`.
    public static func generate(kind: PrekeyKind, id: UInt32, identity: IdentityKeyPair, using source: any RandomSource = SystemRandom()) throws(ProtocolError) -> PrivatePrekey {
        let secret = SecureBytes(randomCount: secretLength(kind), using: source)
        return try PrivatePrekey(kind: kind, id: id, secret: secret, identity: identity)
    }

    /// Builds and signs a prekey from a given secret.
    public init(kind: PrekeyKind, id: UInt32, secret: SecureBytes, identity: IdentityKeyPair) throws(ProtocolError) {
        let publicKey = try PrivatePrekey.publicKey(kind: kind, secret: secret)
        self.signed = try SignedPrekey.sign(kind: kind, id: id, publicKey: publicKey, with: identity.signingKey)
        self.secret = secret
    }

    private init(signed: SignedPrekey, secret: SecureBytes) {
        self.signed = signed
        self.secret = secret
    }

    static func publicKey(kind: PrekeyKind, secret: SecureBytes) throws(ProtocolError) -> [UInt8] {
        guard secret.count == secretLength(kind) else { throw .malformed(what: "\(kind) prekey secret") }
        switch kind {
        case .signedX25519, .oneTimeX25519:
            do { return try X25519.PrivateKey(rawRepresentation: secret).publicKey.rawRepresentation } catch { throw .crypto(error) }
        case .lastResortKEM, .oneTimeKEM:
            do { return try MLKEM.PrivateKey(seed: secret).publicKey } catch { throw .crypto(error) }
        }
    }

    var x25519: X25519.PrivateKey {
        get throws(ProtocolError) {
            guard !kind.publicKeyLength.isKEMLength else { throw .malformed(what: "prekey kind") }
            do { return try X25519.PrivateKey(rawRepresentation: secret) } catch { throw .crypto(error) }
        }
    }

    var kem: MLKEM.PrivateKey {
        get throws(ProtocolError) {
            guard kind.publicKeyLength.isKEMLength else { throw .malformed(what: "prekey kind") }
            do { return try MLKEM.PrivateKey(seed: secret) } catch { throw .crypto(error) }
        }
    }

    /// Versioned bytes for the store (contain the secret: keep them encrypted).
    public func serialized() -> SecureBytes {
        var out: [UInt8] = []
        // Reserve everything first: a reallocation would free an unwiped copy of the secret.
        out.reserveCapacity(6 + secret.count + Ed25519.signatureLength)
        out += [PrivatePrekey.serializationVersion, kind.rawValue]
        out.appendBigEndian(id)
        secret.withUnsafeBytes { out.append(contentsOf: $0) }
        out.append(contentsOf: signed.signature)
        defer { ConstantTime.wipe(&out) }
        return SecureBytes(copying: out)
    }

    /// Restores what `serialized()` wrote, checking the signature against `identity`.
    public init(serialized: SecureBytes, identity: IdentityKey) throws(ProtocolError) {
        var bytes = serialized.copyBytes()
        defer { ConstantTime.wipe(&bytes) }
        var reader = ByteReader(bytes, what: "stored prekey")
        let version = try reader.u8()
        guard version == PrivatePrekey.serializationVersion else { throw .unsupportedVersion(version) }
        guard let kind = PrekeyKind(rawValue: try reader.u8()) else { throw .malformed(what: "stored prekey kind") }
        let id = try reader.u32()
        var secretBytes = try reader.read(PrivatePrekey.secretLength(kind))
        let secret = SecureBytes(copying: secretBytes)
        ConstantTime.wipe(&secretBytes)
        let signature = try reader.read(Ed25519.signatureLength)
        try reader.finish()
        let signed = try SignedPrekey(kind: kind, id: id, publicKey: PrivatePrekey.publicKey(kind: kind, secret: secret), signature: signature)
        try signed.verify(by: identity)
        self.init(signed: signed, secret: secret)
    }
}

extension Int {
    fileprivate var isKEMLength: Bool { self == MLKEM.publicKeyLength }
}

extension PrivatePrekey: CustomStringConvertible {
    public var description: String { "PrivatePrekey(\(kind) \(id), redacted)" }
}
