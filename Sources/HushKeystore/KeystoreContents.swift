import HushCrypto

/// The secrets a keystore holds, in guarded memory.
///
/// Encoded (inside the sealed payload) as a sequence of entries, each
/// `type (u16 BE) || length (u16 BE) || value`, in strictly increasing type
/// order. Types 1–3 are required; other types are secrets later versions add,
/// kept and re-written unchanged by this version. Decoding is strict: a
/// truncated entry, a duplicate or out-of-order type, a wrong length for a
/// known type or trailing bytes make the keystore damaged.
public struct KeystoreContents: Sendable {
    public enum EntryType {
        public static let identitySeed: UInt16 = 1
        public static let databaseKey: UInt16 = 2
        public static let createdAt: UInt16 = 3
        /// The first type free for named secrets added by later versions.
        public static let firstAdditional: UInt16 = 0x100
        /// The 32-byte recovery key that opens the account's backups
        /// (docs/PROTOCOL.md §19.1). Kept among the additional entries, so
        /// a version that does not know it keeps it unchanged, and a
        /// keystore without it stays valid.
        public static let recoveryKey: UInt16 = 0x100
        /// The 32-byte Ed25519 seed of this device's own key (docs/PROTOCOL.md
        /// §20.1): made on the device when it first takes part in a link,
        /// never sent anywhere, and never put in a backup (a restore makes none).
        public static let deviceSeed: UInt16 = 0x101
    }

    /// The 32-byte Ed25519 seed every identity key is derived from.
    public let identitySeed: SecureBytes
    /// The 32-byte raw SQLCipher key of `messages.db`.
    public let databaseKey: SecureBytes
    /// Seconds since 1970 when the identity was created.
    public let createdAt: UInt64
    /// Entries this version does not interpret, by type.
    public let additional: [UInt16: SecureBytes]

    public init(identitySeed: SecureBytes, databaseKey: SecureBytes, createdAt: UInt64, additional: [UInt16: SecureBytes] = [:]) {
        precondition(identitySeed.count == Ed25519.seedLength && databaseKey.count == 32)
        precondition(additional.keys.allSatisfy { $0 >= EntryType.firstAdditional } && additional.values.allSatisfy { $0.count <= Int(UInt16.max) })
        self.identitySeed = identitySeed
        self.databaseKey = databaseKey
        self.createdAt = createdAt
        self.additional = additional
    }

    /// A fresh identity seed and database key from `random`.
    public static func generate(createdAt: UInt64, using random: any RandomSource = SystemRandom()) -> KeystoreContents {
        KeystoreContents(
            identitySeed: SecureBytes(randomCount: Ed25519.seedLength, using: random, storage: .guarded),
            databaseKey: SecureBytes(randomCount: 32, using: random, storage: .guarded),
            createdAt: createdAt)
    }

    /// The Ed25519 identity key pair derived from the seed.
    public func identityKeyPair() -> Ed25519.PrivateKey {
        // The seed is exactly 32 bytes by construction, so this cannot fail.
        try! Ed25519.PrivateKey(seed: identitySeed)
    }

    @_spi(Fuzzing) public func encoded() -> SecureBytes {
        var entries: [(UInt16, SecureBytes)] = [
            (EntryType.identitySeed, identitySeed),
            (EntryType.databaseKey, databaseKey),
        ]
        let created = SecureBytes(count: 8)
        created.withUnsafeMutableBytes { out in
            for i in 0..<8 { out[i] = UInt8(truncatingIfNeeded: createdAt >> (56 - 8 * UInt64(i))) }
        }
        entries.append((EntryType.createdAt, created))
        for type in additional.keys.sorted() { entries.append((type, additional[type]!)) }
        let total = entries.reduce(0) { $0 + 4 + $1.1.count }
        return SecureBytes(count: total, storage: .guarded) { out in
            var offset = 0
            for (type, value) in entries {
                out[offset] = UInt8(type >> 8); out[offset + 1] = UInt8(type & 0xff)
                out[offset + 2] = UInt8(value.count >> 8); out[offset + 3] = UInt8(value.count & 0xff)
                offset += 4
                value.withUnsafeBytes { bytes in
                    for i in 0..<bytes.count { out[offset + i] = bytes[i] }
                }
                offset += value.count
            }
        }
    }

    /// Public to the fuzz targets only (SPI): in use it is reached after the
    /// AEAD opened, so only with the passphrase.
    @_spi(Fuzzing) public init(decoding payload: SecureBytes, path: String) throws(KeystoreError) {
        var seed: SecureBytes?
        var key: SecureBytes?
        var created: UInt64?
        var additional: [UInt16: SecureBytes] = [:]
        var valid = true
        payload.withUnsafeBytes { bytes in
            var offset = 0
            var previous: Int = 0
            while offset < bytes.count {
                guard bytes.count - offset >= 4 else { valid = false; return }
                let type = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
                let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                offset += 4
                guard Int(type) > previous, bytes.count - offset >= length else { valid = false; return }
                previous = Int(type)
                let value = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
                offset += length
                switch type {
                case EntryType.identitySeed:
                    guard length == Ed25519.seedLength else { valid = false; return }
                    seed = SecureBytes(copying: value, storage: .guarded)
                case EntryType.databaseKey:
                    guard length == 32 else { valid = false; return }
                    key = SecureBytes(copying: value, storage: .guarded)
                case EntryType.createdAt:
                    guard length == 8 else { valid = false; return }
                    created = value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                case EntryType.firstAdditional...:
                    additional[type] = SecureBytes(copying: value, storage: .guarded)
                default:
                    // A type below the additional range that this version does not know.
                    valid = false; return
                }
            }
        }
        guard valid, let seed, let key, let created else { throw .damaged(path: path) }
        self.init(identitySeed: seed, databaseKey: key, createdAt: created, additional: additional)
    }
}
