import HushCrypto

/// `POST /v1/auth/challenge`: ask for a nonce to sign.
public struct ChallengeRequest: Codable, Sendable {
    public var identityKey: Base64Bytes
    public init(identityKey: Base64Bytes) { self.identityKey = identityKey }
}

public struct ChallengeResponse: Codable, Sendable {
    public var nonce: Base64Bytes
    /// Unix time in milliseconds after which the challenge is refused.
    public var expiresAt: Int64
    public init(nonce: Base64Bytes, expiresAt: Int64) {
        self.nonce = nonce
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/auth/token`: the signed challenge. Each nonce is accepted once.
/// `origin` is the relay origin the client signed for (`RelayOrigin`, canonical);
/// a request without it is the old, unbound format and is refused.
public struct TokenRequest: Codable, Sendable {
    public var identityKey: Base64Bytes
    public var nonce: Base64Bytes
    public var signature: Base64Bytes
    public var origin: String?
    public init(identityKey: Base64Bytes, nonce: Base64Bytes, signature: Base64Bytes, origin: String?) {
        self.identityKey = identityKey
        self.nonce = nonce
        self.signature = signature
        self.origin = origin
    }
}

public struct TokenResponse: Codable, Sendable {
    /// Opaque bearer token for `Authorization: Bearer <token>`. The relay keeps only its SHA-256.
    public var token: String
    public var expiresAt: Int64
    public init(token: String, expiresAt: Int64) {
        self.token = token
        self.expiresAt = expiresAt
    }
}

/// The bytes a client signs to answer a challenge:
///
///     "hush/v2/relay-auth" || 0x00 || identity key (32) || nonce (32)
///       || origin length (2 bytes, big-endian) || origin (canonical `RelayOrigin`, UTF-8)
///       || pin length (1 byte: 0, or 32) || pin (SHA-256 of the relay's TLS public key, SPKI DER)
///
/// The context keeps the signature from being valid as a prekey signature
/// or a registration proof. The origin (and the pin when the client pinned
/// the relay's key) binds the signature to the relay the client meant: a
/// relay that passes another relay's challenge on gets a signature naming
/// itself, which the other relay refuses. `v2` because the unbound `v1`
/// form (no origin, no pin) is no longer accepted.
public enum AuthChallenge {
    public static let context = Array("hush/v2/relay-auth".utf8) + [0x00]
    /// The length of a key pin (SHA-256).
    public static let pinLength = 32

    public static func message(identityKey: [UInt8], nonce: [UInt8], origin: RelayOrigin, pin: [UInt8]? = nil) -> [UInt8] {
        let originBytes = Array(origin.description.utf8)
        let pinBytes = pin ?? []
        precondition(originBytes.count <= Int(UInt16.max) && (pinBytes.isEmpty || pinBytes.count == pinLength))
        return context + identityKey + nonce
            + [UInt8(originBytes.count >> 8), UInt8(originBytes.count & 0xFF)] + originBytes
            + [UInt8(pinBytes.count)] + pinBytes
    }

    public static func sign(nonce: [UInt8], origin: RelayOrigin, pin: [UInt8]? = nil, with identity: Ed25519.PrivateKey) -> [UInt8] {
        identity.signature(for: message(identityKey: identity.publicKey.rawRepresentation, nonce: nonce, origin: origin, pin: pin))
    }
}
