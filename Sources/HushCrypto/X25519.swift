import CSodium

/// X25519 Diffie-Hellman (RFC 7748).
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
        /// The 32-byte scalar (clamped by libsodium at use, per RFC 7748).
        public let rawRepresentation: SecureBytes
        public let publicKey: PublicKey

        /// A fresh key from `source`.
        public init(using source: any RandomSource = SystemRandom(), storage: SecureBytes.Storage = .wiped) {
            let scalar = SecureBytes(randomCount: X25519.keyLength, using: source, storage: storage)
            // A random scalar always has a public key; the force is an invariant.
            try! self.init(rawRepresentation: scalar)
        }

        /// A key from its 32-byte scalar.
        public init(rawRepresentation scalar: SecureBytes) throws(CryptoError) {
            try requireLength(scalar.count, X25519.keyLength, "X25519 private key")
            Sodium.ensureInitialised()
            var publicBytes = [UInt8](repeating: 0, count: X25519.keyLength)
            let status = scalar.withUnsafeBytes { s in
                crypto_scalarmult_base(&publicBytes, s.bindMemory(to: UInt8.self).baseAddress!)
            }
            guard status == 0 else { throw .libraryFailure("crypto_scalarmult_base") }
            self.rawRepresentation = scalar
            self.publicKey = try PublicKey(rawRepresentation: publicBytes)
        }

        /// The raw X25519 shared secret. An all-zero result (the peer sent a
        /// low-order point) is refused: it would make the "secret" public.
        public func sharedSecret(with peer: PublicKey) throws(CryptoError) -> SecureBytes {
            let shared = SecureBytes(count: X25519.keyLength)
            let status = shared.withUnsafeMutableBytes { out in
                rawRepresentation.withUnsafeBytes { s in
                    crypto_scalarmult(out.bindMemory(to: UInt8.self).baseAddress!,
                                      s.bindMemory(to: UInt8.self).baseAddress!,
                                      peer.rawRepresentation)
                }
            }
            guard status == 0 else { throw .invalidKey }
            return shared
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
