import CSodium
internal import Crypto

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    public static let outputLength = Int(crypto_hash_sha256_BYTES)

    public static func hash<D: ContiguousByteStorage>(_ data: D) -> [UInt8] {
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: outputLength)
        data.withUnsafeBytes { input in
            _ = crypto_hash_sha256(&out, input.bindMemory(to: UInt8.self).baseAddress, UInt64(input.count))
        }
        return out
    }

    /// An incremental SHA-256, for hashing a file chunk by chunk (an
    /// attachment blob's digest, PROTOCOL §10.3). BoringSSL's, through
    /// swift-crypto: it uses the CPU's SHA extensions where there are some,
    /// about 4x libsodium's portable C here, and a blob is hashed whole when
    /// it is sent and again when it is fetched. Same function, same digests
    /// (the attachment vectors and the one-shot `hash` check each other).
    public struct Hasher {
        private var state = Crypto.SHA256()

        public init() {}

        public mutating func update<D: ContiguousByteStorage>(_ data: D) {
            data.withUnsafeBytes { state.update(bufferPointer: $0) }
        }

        public mutating func finalize() -> [UInt8] {
            Array(state.finalize())
        }
    }
}

/// SHA-512 (FIPS 180-4).
public enum SHA512 {
    public static let outputLength = Int(crypto_hash_sha512_BYTES)

    public static func hash<D: ContiguousByteStorage>(_ data: D) -> [UInt8] {
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: outputLength)
        data.withUnsafeBytes { input in
            _ = crypto_hash_sha512(&out, input.bindMemory(to: UInt8.self).baseAddress, UInt64(input.count))
        }
        return out
    }

    /// An incremental SHA-512, for hashing several pieces without joining them.
    public struct Hasher {
        private var state = crypto_hash_sha512_state()

        public init() {
            Sodium.ensureInitialised()
            crypto_hash_sha512_init(&state)
        }

        public mutating func update<D: ContiguousByteStorage>(_ data: D) {
            data.withUnsafeBytes { input in
                _ = crypto_hash_sha512_update(&state, input.bindMemory(to: UInt8.self).baseAddress, UInt64(input.count))
            }
        }

        public mutating func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: SHA512.outputLength)
            crypto_hash_sha512_final(&state, &out)
            return out
        }
    }
}

/// BLAKE2b (RFC 7693), unkeyed or keyed, 16 to 64 bytes of output.
public enum BLAKE2b {
    public static let minimumOutputLength = Int(crypto_generichash_BYTES_MIN)
    public static let maximumOutputLength = Int(crypto_generichash_BYTES_MAX)
    public static let maximumKeyLength = Int(crypto_generichash_KEYBYTES_MAX)

    public static func hash<D: ContiguousByteStorage>(_ data: D, outputLength: Int = 32) -> [UInt8] {
        precondition((minimumOutputLength...maximumOutputLength).contains(outputLength), "BLAKE2b output length out of range")
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: outputLength)
        data.withUnsafeBytes { input in
            _ = crypto_generichash(&out, outputLength, input.bindMemory(to: UInt8.self).baseAddress, UInt64(input.count), nil, 0)
        }
        return out
    }

    public static func hash<D: ContiguousByteStorage, K: ContiguousByteStorage>(_ data: D, key: K, outputLength: Int = 32) throws(CryptoError) -> [UInt8] {
        precondition((minimumOutputLength...maximumOutputLength).contains(outputLength), "BLAKE2b output length out of range")
        let keyCount = key.withUnsafeBytes { $0.count }
        guard keyCount <= maximumKeyLength else {
            throw .parametersOutOfBounds("BLAKE2b key longer than \(maximumKeyLength) bytes")
        }
        Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: outputLength)
        data.withUnsafeBytes { input in
            key.withUnsafeBytes { k in
                _ = crypto_generichash(&out, outputLength,
                                       input.bindMemory(to: UInt8.self).baseAddress, UInt64(input.count),
                                       k.bindMemory(to: UInt8.self).baseAddress, k.count)
            }
        }
        return out
    }
}
