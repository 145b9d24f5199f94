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
public struct TokenRequest: Codable, Sendable {
    public var identityKey: Base64Bytes
    public var nonce: Base64Bytes
    public var signature: Base64Bytes
    public init(identityKey: Base64Bytes, nonce: Base64Bytes, signature: Base64Bytes) {
        self.identityKey = identityKey
        self.nonce = nonce
        self.signature = signature
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
///     "hush/v1/relay-auth" || 0x00 || identity key (32) || nonce (32)
///
/// The context keeps the signature from being valid as a prekey signature
/// or a registration proof.
public enum AuthChallenge {
    public static let context = Array("hush/v1/relay-auth".utf8) + [0x00]

    public static func message(identityKey: [UInt8], nonce: [UInt8]) -> [UInt8] {
        context + identityKey + nonce
    }

    public static func sign(nonce: [UInt8], with identity: Ed25519.PrivateKey) -> [UInt8] {
        identity.signature(for: message(identityKey: identity.publicKey.rawRepresentation, nonce: nonce))
    }
}
