import HushCrypto
import HushProtocol

/// `POST /v1/identities`: publish an identity with its prekeys.
///
/// A later registration of the same identity replaces the signed and
/// last-resort prekeys and adds the one-time ones; it must carry a newer
/// `timestamp` than any accepted before, so a captured registration cannot be
/// replayed to bring back consumed one-time prekeys.
public struct RegisterRequest: Codable, Sendable {
    public var identityKey: Base64Bytes
    public var signedPrekey: SignedPrekeyDTO
    public var lastResortKEMPrekey: SignedPrekeyDTO
    public var oneTimePrekeys: [SignedPrekeyDTO]
    /// Unix time in milliseconds, within `RelayLimits.registrationClockSkewSeconds` of the relay's clock.
    public var timestamp: Int64
    /// Ed25519 signature by the identity key over `RegistrationProof.message(for:)`.
    public var proof: Base64Bytes

    public init(identityKey: Base64Bytes, signedPrekey: SignedPrekeyDTO, lastResortKEMPrekey: SignedPrekeyDTO,
                oneTimePrekeys: [SignedPrekeyDTO], timestamp: Int64, proof: Base64Bytes) {
        self.identityKey = identityKey
        self.signedPrekey = signedPrekey
        self.lastResortKEMPrekey = lastResortKEMPrekey
        self.oneTimePrekeys = oneTimePrekeys
        self.timestamp = timestamp
        self.proof = proof
    }

    /// Builds and signs a registration with `identity`.
    public static func signed(identity: Ed25519.PrivateKey, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                              oneTimePrekeys: [SignedPrekey], timestamp: Int64) -> RegisterRequest {
        var request = RegisterRequest(
            identityKey: Base64Bytes(identity.publicKey.rawRepresentation),
            signedPrekey: SignedPrekeyDTO(signedPrekey),
            lastResortKEMPrekey: SignedPrekeyDTO(lastResortKEMPrekey),
            oneTimePrekeys: oneTimePrekeys.map(SignedPrekeyDTO.init),
            timestamp: timestamp,
            proof: Base64Bytes([])
        )
        request.proof = Base64Bytes(identity.signature(for: RegistrationProof.message(for: request)))
        return request
    }
}

/// The bytes a registration proof signs:
///
///     "hush/v1/relay-register" || 0x00 || identity key (32) || timestamp (8, big-endian)
///       || SHA-256( for each prekey in order signed, last-resort, one-time…:
///                   kind (1) || id (4, BE) || key length (4, BE) || key || signature (64) )
///
/// The context string keeps this signature from ever being valid as a prekey
/// signature or an auth response, and the digest binds every prekey.
public enum RegistrationProof {
    public static let context = Array("hush/v1/relay-register".utf8) + [0x00]

    public static func message(for request: RegisterRequest) -> [UInt8] {
        var digest = SHA256Accumulator()
        for prekey in [request.signedPrekey, request.lastResortKEMPrekey] + request.oneTimePrekeys {
            digest.append([prekey.kind])
            digest.append(bigEndian: prekey.id)
            digest.append(bigEndian: UInt32(truncatingIfNeeded: prekey.publicKey.bytes.count))
            digest.append(prekey.publicKey.bytes)
            digest.append(prekey.signature.bytes)
        }
        var message = context
        message.append(contentsOf: request.identityKey.bytes)
        message.append(contentsOf: withUnsafeBytes(of: request.timestamp.bigEndian, Array.init))
        message.append(contentsOf: SHA256.hash(digest.bytes))
        return message
    }
}

/// Collects bytes to hash in one call (HushCrypto's SHA-256 is one-shot).
struct SHA256Accumulator {
    var bytes: [UInt8] = []
    mutating func append(_ more: [UInt8]) { bytes.append(contentsOf: more) }
    mutating func append(bigEndian value: UInt32) { bytes.append(contentsOf: withUnsafeBytes(of: value.bigEndian, Array.init)) }
}

/// `POST /v1/identities` answer (201).
public struct RegisterResponse: Codable, Sendable, Equatable {
    public var oneTimeX25519: Int
    public var oneTimeKEM: Int
    /// `GET /v1/prekeys/count` only: the `timestamp` and the signed prekey of
    /// the registration the relay holds for the caller's key (absent from
    /// relays before them). A home that did not make that registration has
    /// been replaced by another home of the same key (a restore, PROTOCOL §19.4).
    public var registeredAt: Int64?
    public var signedPrekey: SignedPrekeyDTO?
    public init(oneTimeX25519: Int, oneTimeKEM: Int, registeredAt: Int64? = nil, signedPrekey: SignedPrekeyDTO? = nil) {
        self.oneTimeX25519 = oneTimeX25519
        self.oneTimeKEM = oneTimeKEM
        self.registeredAt = registeredAt
        self.signedPrekey = signedPrekey
    }
}

/// `POST /v1/prekeys` (authenticated): more one-time prekeys, X25519 and/or KEM.
public struct UploadPrekeysRequest: Codable, Sendable {
    public var oneTimePrekeys: [SignedPrekeyDTO]
    public init(oneTimePrekeys: [SignedPrekeyDTO]) { self.oneTimePrekeys = oneTimePrekeys }
}

/// `GET /v1/prekeys/count` and the answer to uploads: one-time prekeys left.
public typealias PrekeyCountResponse = RegisterResponse
