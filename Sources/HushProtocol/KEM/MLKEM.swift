import Crypto
import Foundation
import HushCrypto

/// ML-KEM-768 (FIPS 203), the one primitive HushProtocol takes from
/// swift-crypto (libsodium 1.0.18 has none). The rest of the protocol sees
/// only this namespace and plain bytes.
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
        public init(ciphertext: [UInt8], sharedSecret: SecureBytes) throws(ProtocolError) {
            guard ciphertext.count == MLKEM.ciphertextLength else { throw .malformed(what: "ML-KEM ciphertext") }
            guard sharedSecret.count == MLKEM.sharedSecretLength else { throw .malformed(what: "ML-KEM shared secret") }
            self.ciphertext = ciphertext
            self.sharedSecret = sharedSecret
        }
    }

    /// Encapsulates a fresh secret to `publicKey` (1184 bytes). The key is
    /// checked as FIPS 203 requires (modulus check) before use.
    public static func encapsulate(to publicKey: [UInt8]) throws(ProtocolError) -> Encapsulation {
        guard publicKey.count == publicKeyLength else { throw .malformed(what: "ML-KEM public key") }
        do {
            let key = try MLKEM768.PublicKey(rawRepresentation: publicKey)
            let result = try key.encapsulate()
            let secret = result.sharedSecret.withUnsafeBytes { SecureBytes(copying: $0) }
            return try Encapsulation(ciphertext: Array(result.encapsulated), sharedSecret: secret)
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw .crypto(.invalidKey)
        }
    }

    /// An ML-KEM-768 decapsulation key held as its 64-byte seed.
    public struct PrivateKey: Sendable {
        public let seed: SecureBytes
        public let publicKey: [UInt8]
        private let key: MLKEM768.PrivateKey

        public init(seed: SecureBytes) throws(ProtocolError) {
            guard seed.count == MLKEM.seedLength else { throw .malformed(what: "ML-KEM seed") }
            do {
                // Lend the seed without copying it into an unwiped Data buffer.
                key = try seed.withUnsafeBytes { bytes in
                    try MLKEM768.PrivateKey(
                        seedRepresentation: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!),
                                                 count: bytes.count, deallocator: .none),
                        publicKey: nil)
                }
            } catch {
                throw .crypto(.invalidKey)
            }
            self.seed = seed
            self.publicKey = Array(key.publicKey.rawRepresentation)
        }

        public init(using source: any RandomSource) {
            try! self.init(seed: SecureBytes(randomCount: MLKEM.seedLength, using: source))
        }

        /// ML-KEM decapsulation never fails on a well-sized ciphertext
        /// (implicit rejection yields an unrelated secret instead).
        public func decapsulate(_ ciphertext: [UInt8]) throws(ProtocolError) -> SecureBytes {
            guard ciphertext.count == MLKEM.ciphertextLength else { throw .malformed(what: "ML-KEM ciphertext") }
            do {
                let shared = try key.decapsulate(ciphertext)
                return shared.withUnsafeBytes { SecureBytes(copying: $0) }
            } catch {
                throw .crypto(.authenticationFailed)
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
