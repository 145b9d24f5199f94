import Foundation
internal import Crypto

/// ML-KEM-768 (FIPS 203), the one primitive HushCrypto takes from swift-crypto
/// (libsodium 1.0.18 has none). Wrapped like X25519 and Ed25519: plain bytes
/// in and out, secrets in `SecureBytes`, `CryptoError` on failure, and
/// swift-crypto's types never cross this file (an internal import), so the
/// floors above see one crypto module.
///
/// Determinism: key generation is reachable from a 64-byte seed `d || z`
/// (FIPS 203 ML-KEM.KeyGen_internal), so prekeys and vectors derive KEM keys
/// from seeds. swift-crypto 4.5.2 offers no public encapsulation with
/// caller-given randomness, so encapsulation is always random; the handshake
/// therefore takes an `Encapsulation` value, and the vector generator pins a
/// recorded ciphertext (see Vectors/README.md).
public enum MLKEM {
    public static let publicKeyLength = 1184
    public static let ciphertextLength = 1088
    public static let sharedSecretLength = 32
    public static let seedLength = 64

    /// The result of encapsulating to a public key.
    public struct Encapsulation: Sendable {
        public let ciphertext: [UInt8]
        public let sharedSecret: SecureBytes

        /// For vectors and tests: an encapsulation recorded elsewhere.
        public init(ciphertext: [UInt8], sharedSecret: SecureBytes) throws(CryptoError) {
            try requireLength(ciphertext.count, MLKEM.ciphertextLength, "ML-KEM ciphertext")
            try requireLength(sharedSecret.count, MLKEM.sharedSecretLength, "ML-KEM shared secret")
            self.ciphertext = ciphertext
            self.sharedSecret = sharedSecret
        }
    }

    /// Encapsulates a fresh secret to `publicKey` (1184 bytes). The key is
    /// checked as FIPS 203 requires (modulus check) before use.
    public static func encapsulate(to publicKey: [UInt8]) throws(CryptoError) -> Encapsulation {
        try requireLength(publicKey.count, publicKeyLength, "ML-KEM public key")
        let ciphertext: [UInt8], secret: SecureBytes
        do {
            let result = try Crypto.MLKEM768.PublicKey(rawRepresentation: publicKey).encapsulate()
            ciphertext = Array(result.encapsulated)
            secret = result.sharedSecret.withUnsafeBytes { SecureBytes(copying: $0) }
        } catch {
            throw .invalidKey
        }
        return try Encapsulation(ciphertext: ciphertext, sharedSecret: secret)
    }

    /// An ML-KEM-768 decapsulation key held as its 64-byte seed.
    public struct PrivateKey: Sendable {
        public let seed: SecureBytes
        public let publicKey: [UInt8]
        private let key: Crypto.MLKEM768.PrivateKey

        public init(seed: SecureBytes) throws(CryptoError) {
            try requireLength(seed.count, MLKEM.seedLength, "ML-KEM seed")
            do {
                // Lend the seed without copying it into an unwiped Data buffer.
                key = try seed.withUnsafeBytes { bytes in
                    try Crypto.MLKEM768.PrivateKey(
                        seedRepresentation: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!),
                                                 count: bytes.count, deallocator: .none),
                        publicKey: nil)
                }
            } catch {
                throw .invalidKey
            }
            self.seed = seed
            self.publicKey = Array(key.publicKey.rawRepresentation)
        }

        /// A fresh key from `source`.
        public init(using source: any RandomSource = SystemRandom()) {
            // A 64-byte seed always yields a key; the force is an invariant.
            try! self.init(seed: SecureBytes(randomCount: MLKEM.seedLength, using: source))
        }

        /// ML-KEM decapsulation never fails on a well-sized ciphertext
        /// (implicit rejection yields an unrelated secret instead).
        public func decapsulate(_ ciphertext: [UInt8]) throws(CryptoError) -> SecureBytes {
            try requireLength(ciphertext.count, MLKEM.ciphertextLength, "ML-KEM ciphertext")
            do {
                let shared = try key.decapsulate(ciphertext)
                return shared.withUnsafeBytes { SecureBytes(copying: $0) }
            } catch {
                throw .authenticationFailed
            }
        }
    }
}

extension MLKEM.PrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "MLKEM.PrivateKey(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension MLKEM.Encapsulation: CustomStringConvertible, CustomReflectable {
    public var description: String { "MLKEM.Encapsulation(shared secret redacted)" }
    public var customMirror: Mirror { Mirror(self, children: ["ciphertext": ciphertext], displayStyle: .struct) }
}
