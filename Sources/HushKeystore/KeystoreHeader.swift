import HushCrypto

/// The clear-text header of a keystore file, authenticated as the associated
/// data of the sealed payload (so a changed cost or salt fails to open).
///
/// ```
/// offset size  field
///      0    8  magic "HUSHKEYS"
///      8    1  format version (1)
///      9    1  KDF identifier (1 = Argon2id v1.3)
///     10    4  Argon2id passes, big-endian
///     14    4  Argon2id memory in KiB, big-endian
///     18   16  Argon2id salt
///     34   24  XChaCha20-Poly1305 nonce
///     58    …  sealed payload: ciphertext || 16-byte tag
/// ```
public struct KeystoreHeader: Sendable, Equatable {
    public static let magic: [UInt8] = Array("HUSHKEYS".utf8)
    public static let currentVersion: UInt8 = 1
    public static let argon2idIdentifier: UInt8 = 1
    public static let length = 8 + 1 + 1 + 4 + 4 + Argon2id.saltLength + XChaCha20Poly1305.nonceLength

    public let version: UInt8
    public let cost: Argon2id.Cost
    public let salt: [UInt8]
    public let nonce: [UInt8]

    public init(cost: Argon2id.Cost, salt: [UInt8], nonce: [UInt8]) {
        precondition(salt.count == Argon2id.saltLength && nonce.count == XChaCha20Poly1305.nonceLength)
        self.version = KeystoreHeader.currentVersion
        self.cost = cost
        self.salt = salt
        self.nonce = nonce
    }

    public var encoded: [UInt8] {
        var out = KeystoreHeader.magic
        out.append(version)
        out.append(KeystoreHeader.argon2idIdentifier)
        out.append(contentsOf: bigEndian(cost.operations))
        out.append(contentsOf: bigEndian(UInt32(cost.memoryBytes >> 10)))
        out.append(contentsOf: salt)
        out.append(contentsOf: nonce)
        return out
    }

    /// Parses and bounds the header of `file` before any key derivation, so
    /// a crafted file cannot ask for minutes of work or gigabytes of memory.
    public init(parsing file: [UInt8], path: String) throws(KeystoreError) {
        guard file.count >= KeystoreHeader.magic.count,
              Array(file[0..<KeystoreHeader.magic.count]) == KeystoreHeader.magic,
              file.count > 8 else { throw .damaged(path: path) }
        let version = file[8]
        guard version <= KeystoreHeader.currentVersion else {
            throw .newerVersion(found: version, supported: KeystoreHeader.currentVersion)
        }
        guard version >= 1, file.count >= KeystoreHeader.length + XChaCha20Poly1305.tagLength,
              file[9] == KeystoreHeader.argon2idIdentifier else { throw .damaged(path: path) }
        let passes = readBigEndian32(file, at: 10)
        let memoryKiB = readBigEndian32(file, at: 14)
        guard let cost = try? Argon2id.Cost(operations: passes, memoryBytes: UInt64(memoryKiB) << 10) else {
            throw .damaged(path: path)
        }
        self.version = version
        self.cost = cost
        self.salt = Array(file[18..<34])
        self.nonce = Array(file[34..<KeystoreHeader.length])
    }
}

func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
     UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
}

func readBigEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (UInt32(bytes[offset]) << 24) | (UInt32(bytes[offset + 1]) << 16) | (UInt32(bytes[offset + 2]) << 8) | UInt32(bytes[offset + 3])
}
