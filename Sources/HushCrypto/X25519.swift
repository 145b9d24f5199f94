import CSodium
internal import Crypto

/// X25519 Diffie-Hellman (RFC 7748), computed by one of two libraries
/// according to where the scalar lives (the same function: RFC 7748's and
/// Wycheproof's vectors, and a differential test against libsodium, hold for both):
/// - a `.wiped` scalar (ephemeral, ratchet and prekey keys: the hot path,
///   a fresh one per sealed envelope) is handed to BoringSSL through
///   swift-crypto, whose copy is zeroed when the key is released. Measured
///   here (`make bench BENCH=crypto`): 15 µs to make a key pair and 32 µs
///   per agreement, against libsodium's 43 and 44 µs.
/// - a `.guarded` scalar (the identity agreement key) never leaves
///   libsodium's guarded memory: libsodium computes with it in place.
public enum X25519 {
    public static let keyLength = Int(crypto_scalarmult_BYTES)

    public struct PublicKey: Sendable, Hashable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation: [UInt8]) throws(CryptoError) {
            try requireLength(rawRepresentation.count, X25519.keyLength, "X25519 public key")
            self.rawRepresentation = rawRepresentation
        }
    }

    public struct PrivateKey: Sendable {
        /// The 32-byte scalar (clamped at use, per RFC 7748).
        public let rawRepresentation: SecureBytes
        public let publicKey: PublicKey
        /// BoringSSL's copy of a `.wiped` scalar; nil for a `.guarded` one.
        private let boring: BoringKey?

        /// A fresh key from `source`.
        public init(using source: any RandomSource = SystemRandom(), storage: SecureBytes.Storage = .wiped) {
            let scalar = SecureBytes(randomCount: X25519.keyLength, using: source, storage: storage)
            // A random scalar always has a public key; the force is an invariant.
            try! self.init(rawRepresentation: scalar)
        }

        /// A key from its 32-byte scalar.
        public init(rawRepresentation scalar: SecureBytes) throws(CryptoError) {
            try requireLength(scalar.count, X25519.keyLength, "X25519 private key")
            rawRepresentation = scalar
            switch scalar.storage {
            case .wiped:
                let key = try BoringKey(scalar)
                boring = key
                publicKey = try PublicKey(rawRepresentation: key.publicKey)
            case .guarded:
                boring = nil
                publicKey = try PublicKey(rawRepresentation: X25519.sodiumPublicKey(scalar))
            }
        }

        /// The raw X25519 shared secret. An all-zero result (the peer sent a
        /// low-order point) is refused: it would make the "secret" public.
        public func sharedSecret(with peer: PublicKey) throws(CryptoError) -> SecureBytes {
            let shared: SecureBytes
            if let boring {
                shared = try boring.sharedSecret(with: peer.rawRepresentation)
            } else {
                shared = try X25519.sodiumSharedSecret(rawRepresentation, peer.rawRepresentation)
            }
            // Constant time, as libsodium's own check (swift-crypto makes none).
            let isZero = shared.withUnsafeBytes { sodium_is_zero($0.bindMemory(to: UInt8.self).baseAddress!, $0.count) == 1 }
            guard !isZero else { throw .invalidKey }
            return shared
        }
    }

    /// libsodium's public key for `scalar`, computed in place.
    @_spi(Reference)
    public static func sodiumPublicKey(_ scalar: SecureBytes) throws(CryptoError) -> [UInt8] {
        try requireLength(scalar.count, keyLength, "X25519 private key")
        Sodium.ensureInitialised()
        var publicBytes = [UInt8](repeating: 0, count: keyLength)
        let status = scalar.withUnsafeBytes { s in
            crypto_scalarmult_base(&publicBytes, s.bindMemory(to: UInt8.self).baseAddress!)
        }
        guard status == 0 else { throw .libraryFailure("crypto_scalarmult_base") }
        return publicBytes
    }

    /// libsodium's X25519 of `scalar` and `peer`, computed in place (an
    /// all-zero result is refused by the caller).
    @_spi(Reference)
    public static func sodiumSharedSecret(_ scalar: SecureBytes, _ peer: [UInt8]) throws(CryptoError) -> SecureBytes {
        try requireLength(scalar.count, keyLength, "X25519 private key")
        try requireLength(peer.count, keyLength, "X25519 public key")
        Sodium.ensureInitialised()
        let shared = SecureBytes(count: keyLength)
        // libsodium returns -1 for an all-zero result: the caller's check says so in one place.
        _ = shared.withUnsafeMutableBytes { out in
            scalar.withUnsafeBytes { s in
                crypto_scalarmult(out.bindMemory(to: UInt8.self).baseAddress!, s.bindMemory(to: UInt8.self).baseAddress!, peer)
            }
        }
        return shared
    }
}

/// A `.wiped` X25519 scalar held by swift-crypto (BoringSSL), whose storage
/// zeroes it on release like `SecureBytes(.wiped)`.
final class BoringKey: Sendable {
    private let key: Curve25519.KeyAgreement.PrivateKey

    init(_ scalar: SecureBytes) throws(CryptoError) {
        do {
            key = try scalar.withUnsafeBytes { try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: $0) }
        } catch {
            throw .libraryFailure("X25519 private key")
        }
    }

    var publicKey: [UInt8] { Array(key.publicKey.rawRepresentation) }

    func sharedSecret(with peer: [UInt8]) throws(CryptoError) -> SecureBytes {
        do {
            let secret = try key.sharedSecretFromKeyAgreement(with: try Curve25519.KeyAgreement.PublicKey(rawRepresentation: peer))
            return secret.withUnsafeBytes { SecureBytes(copying: $0) }
        } catch {
            throw .invalidKey
        }
    }
}

extension X25519.PublicKey: CustomStringConvertible {
    public var description: String { "X25519.PublicKey(\(Hex.encode(rawRepresentation)))" }
}

extension X25519.PrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "X25519.PrivateKey(redacted, public \(Hex.encode(publicKey.rawRepresentation)))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
}
