import CSodium
import Synchronization

/// Argon2id password hashing (RFC 9106, libsodium's version 1.3), used to turn
/// a passphrase into a key-encryption key.
public enum Argon2id {
    public static let saltLength = Int(crypto_pwhash_SALTBYTES)

    /// How many keys this process has derived. Each derivation holds the
    /// cost's memory (64 MiB at the interactive cost, 256 MiB at the
    /// default) while it runs, so a command's peak memory depends on not
    /// deriving twice (`hush backup restore` says how many with HUSH_TIMINGS=1).
    public static var derivationsSoFar: Int { derivations.load(ordering: .relaxed) }
    private static let derivations = Atomic<Int>(0)

    /// Time (passes) and memory costs. Costs read from a file are checked
    /// against `maximum` before any work, so a crafted file cannot make an
    /// unlock take minutes or gigabytes.
    public struct Cost: Sendable, Equatable, CustomStringConvertible {
        public let operations: UInt32
        public let memoryBytes: UInt64

        public init(operations: UInt32, memoryBytes: UInt64) throws(CryptoError) {
            guard Cost.minimum.operations <= operations, operations <= Cost.maximum.operations else {
                throw .parametersOutOfBounds("Argon2id passes \(operations) outside \(Cost.minimum.operations)...\(Cost.maximum.operations)")
            }
            guard Cost.minimum.memoryBytes <= memoryBytes, memoryBytes <= Cost.maximum.memoryBytes else {
                throw .parametersOutOfBounds("Argon2id memory \(memoryBytes) bytes outside \(Cost.minimum.memoryBytes)...\(Cost.maximum.memoryBytes)")
            }
            self.operations = operations
            self.memoryBytes = memoryBytes
        }

        private init(unchecked operations: UInt32, _ memoryBytes: UInt64) {
            self.operations = operations
            self.memoryBytes = memoryBytes
        }

        /// libsodium's interactive level: 2 passes, 64 MiB.
        public static let interactive = Cost(unchecked: 2, 64 << 20)
        /// libsodium's moderate level: 3 passes, 256 MiB. Hush's default for keystores.
        public static let moderate = Cost(unchecked: 3, 256 << 20)
        /// libsodium's sensitive level: 4 passes, 1 GiB.
        public static let sensitive = Cost(unchecked: 4, 1 << 30)
        /// Only for tests: 1 pass, 8 KiB. Never offered to users.
        public static let insecureTestOnly = Cost(unchecked: 1, 8 << 10)

        /// The bounds any cost must lie within.
        public static let minimum = Cost(unchecked: 1, 8 << 10)
        public static let maximum = Cost(unchecked: 10, 1 << 30)

        public var description: String { "Argon2id(passes: \(operations), memory: \(memoryBytes >> 10) KiB)" }
    }

    /// Derives `length` bytes from `passphrase` and a 16-byte `salt`.
    public static func deriveKey<P: ContiguousByteStorage>(
        passphrase: P, salt: [UInt8], cost: Cost, length: Int = 32, storage: SecureBytes.Storage = .guarded
    ) throws(CryptoError) -> SecureBytes {
        try requireLength(salt.count, saltLength, "Argon2id salt")
        guard length >= 16, length <= 1024 else {
            throw .parametersOutOfBounds("Argon2id output length \(length)")
        }
        Sodium.ensureInitialised()
        derivations.add(1, ordering: .relaxed)
        let key = SecureBytes(count: length, storage: storage)
        let status = key.withUnsafeMutableBytes { out in
            passphrase.withUnsafeBytes { raw in
                raw.withNonNullBaseAddress { p in
                crypto_pwhash(out.bindMemory(to: UInt8.self).baseAddress!, UInt64(length),
                              p.assumingMemoryBound(to: CChar.self), UInt64(raw.count),
                              salt, UInt64(cost.operations), Int(cost.memoryBytes),
                              crypto_pwhash_ALG_ARGON2ID13)
                }
            }
        }
        // crypto_pwhash fails only when memory cannot be had.
        guard status == 0 else { throw .libraryFailure("crypto_pwhash (out of memory?)") }
        return key
    }
}
