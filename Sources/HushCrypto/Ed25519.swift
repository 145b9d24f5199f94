import CSodium

/// Ed25519 signatures (RFC 8032), with libsodium's strict verification:
/// non-canonical encodings and small-order public keys are rejected.
public enum Ed25519 {
    public static let publicKeyLength = Int(crypto_sign_PUBLICKEYBYTES)
    public static let seedLength = Int(crypto_sign_SEEDBYTES)
    public static let signatureLength = Int(crypto_sign_BYTES)

    public struct PublicKey: Sendable, Hashable {
        public let rawRepresentation: [UInt8]

        public init(rawRepresentation: [UInt8]) throws(CryptoError) {
            try requireLength(rawRepresentation.count, Ed25519.publicKeyLength, "Ed25519 public key")
            self.rawRepresentation = rawRepresentation
        }

        /// True only for a valid signature by this key over `message`. Any
        /// malformed input is simply an invalid signature.
        public func isValidSignature<S: ContiguousByteStorage, M: ContiguousByteStorage>(_ signature: S, for message: M) -> Bool {
            Sodium.ensureInitialised()
            return signature.withUnsafeBytes { sig in
                guard sig.count == Ed25519.signatureLength else { return false }
                return message.withUnsafeBytes { msg in
                    crypto_sign_verify_detached(sig.bindMemory(to: UInt8.self).baseAddress!,
                                                msg.bindMemory(to: UInt8.self).baseAddress,
                                                UInt64(msg.count),
                                                rawRepresentation) == 0
                }
            }
        }
    }

    public struct PrivateKey: Sendable {
        /// The 32-byte seed that RFC 8032 calls the private key.
        public let seed: SecureBytes
        /// libsodium's 64-byte expanded form (seed || public key).
        private let expanded: SecureBytes
        public let publicKey: PublicKey

        public init(using source: any RandomSource = SystemRandom(), storage: SecureBytes.Storage = .wiped) {
            let seed = SecureBytes(randomCount: Ed25519.seedLength, using: source, storage: storage)
            try! self.init(seed: seed)
        }

        public init(seed: SecureBytes) throws(CryptoError) {
            try requireLength(seed.count, Ed25519.seedLength, "Ed25519 seed")
            Sodium.ensureInitialised()
            let expanded = SecureBytes(count: Int(crypto_sign_SECRETKEYBYTES), storage: seed.storage)
            var publicBytes = [UInt8](repeating: 0, count: Ed25519.publicKeyLength)
            let status = expanded.withUnsafeMutableBytes { sk in
                seed.withUnsafeBytes { s in
                    crypto_sign_seed_keypair(&publicBytes,
                                             sk.bindMemory(to: UInt8.self).baseAddress!,
                                             s.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            guard status == 0 else { throw .libraryFailure("crypto_sign_seed_keypair") }
            self.seed = seed
            self.expanded = expanded
            self.publicKey = try PublicKey(rawRepresentation: publicBytes)
        }

        public func signature<M: ContiguousByteStorage>(for message: M) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: Ed25519.signatureLength)
            message.withUnsafeBytes { msg in
                expanded.withUnsafeBytes { sk in
                    _ = crypto_sign_detached(&signature, nil,
                                             msg.bindMemory(to: UInt8.self).baseAddress,
                                             UInt64(msg.count),
                                             sk.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            return signature
        }
    }
}

extension Ed25519.PublicKey: CustomStringConvertible {
    public var description: String { "Ed25519.PublicKey(\(Hex.encode(rawRepresentation)))" }
}

extension Ed25519.PrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "Ed25519.PrivateKey(redacted, public \(Hex.encode(publicKey.rawRepresentation)))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
}
