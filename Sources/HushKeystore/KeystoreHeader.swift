import HushCrypto

/// The clear-text header of a keystore file, authenticated as the associated
/// data of the sealed payload (so a changed cost or salt fails to open).
///
/// ```
/// offset size  field
///      0    8  magic "HUSHKEYS"
///      8    1  format version (1)
///      9    1  KDF identifier (1 = Argon2id v1.3, 2 = application key)
///     10    4  Argon2id passes, big-endian (0 for an application key)
///     14    4  Argon2id memory in KiB, big-endian (0 for an application key)
///     18   16  salt (of Argon2id, or of HKDF-SHA256 for an application key)
///     34   24  XChaCha20-Poly1305 nonce
///     58    …  sealed payload: ciphertext || 16-byte tag
/// ```
public struct KeystoreHeader: Sendable, Equatable {
    /// How the key-encryption key is derived, as the header's KDF identifier says.
    public enum KeyDerivation: Sendable, Equatable, CustomStringConvertible {
        /// Identifier 1: Argon2id(passphrase, salt) with these costs.
        case argon2id(Argon2id.Cost)
        /// Identifier 2: HKDF-SHA256(application key, salt, `applicationKeyInfo`);
        /// the key is 32 random bytes, so there is nothing to stretch.
        case applicationKey

        public var identifier: UInt8 {
            switch self {
            case .argon2id: return KeystoreHeader.argon2idIdentifier
            case .applicationKey: return KeystoreHeader.applicationKeyIdentifier
            }
        }

        public var description: String {
            switch self {
            case let .argon2id(cost): return cost.description
            case .applicationKey: return "application key (HKDF-SHA256)"
            }
        }
    }

    public static let magic: [UInt8] = Array("HUSHKEYS".utf8)
    public static let currentVersion: UInt8 = 1
    public static let argon2idIdentifier: UInt8 = 1
    public static let applicationKeyIdentifier: UInt8 = 2
    public static let length = 8 + 1 + 1 + 4 + 4 + Argon2id.saltLength + XChaCha20Poly1305.nonceLength

    public let version: UInt8
    public let keyDerivation: KeyDerivation
    public let salt: [UInt8]
    public let nonce: [UInt8]

    /// The Argon2id cost of a passphrase keystore. An application-key
    /// keystore has none and answers `Argon2id.Cost.minimum`; this property
    /// only serves callers that handle passphrase keystores alone (which
    /// unlock with a passphrase first and so never reach that value):
    /// anything that may meet both kinds reads `keyDerivation`.
    public var cost: Argon2id.Cost {
        guard case let .argon2id(cost) = keyDerivation else { return .minimum }
        return cost
    }

    public init(keyDerivation: KeyDerivation, salt: [UInt8], nonce: [UInt8]) {
        precondition(salt.count == Argon2id.saltLength && nonce.count == XChaCha20Poly1305.nonceLength)
        self.version = KeystoreHeader.currentVersion
        self.keyDerivation = keyDerivation
        self.salt = salt
        self.nonce = nonce
    }

    public init(cost: Argon2id.Cost, salt: [UInt8], nonce: [UInt8]) {
        self.init(keyDerivation: .argon2id(cost), salt: salt, nonce: nonce)
    }

    public var encoded: [UInt8] {
        var out = KeystoreHeader.magic
        out.append(version)
        out.append(keyDerivation.identifier)
        switch keyDerivation {
        case let .argon2id(cost):
            out.append(contentsOf: bigEndian(cost.operations))
            out.append(contentsOf: bigEndian(UInt32(cost.memoryBytes >> 10)))
        case .applicationKey:
            out.append(contentsOf: [UInt8](repeating: 0, count: 8))
        }
        out.append(contentsOf: salt)
        out.append(contentsOf: nonce)
        return out
    }

    /// Parses and bounds the header of `file` before any key derivation, so
    /// a crafted file cannot ask for minutes of work or gigabytes of memory.
    /// An unknown KDF identifier is `damaged` (as Hush before identifier 2
    /// also says of an application-key keystore).
    public init(parsing file: [UInt8], path: String) throws(KeystoreError) {
        guard file.count >= KeystoreHeader.magic.count,
              Array(file[0..<KeystoreHeader.magic.count]) == KeystoreHeader.magic,
              file.count > 8 else { throw .damaged(path: path) }
        let version = file[8]
        guard version <= KeystoreHeader.currentVersion else {
            throw .newerVersion(found: version, supported: KeystoreHeader.currentVersion)
        }
        guard version >= 1, file.count >= KeystoreHeader.length + XChaCha20Poly1305.tagLength else {
            throw .damaged(path: path)
        }
        let passes = readBigEndian32(file, at: 10)
        let memoryKiB = readBigEndian32(file, at: 14)
        switch file[9] {
        case KeystoreHeader.argon2idIdentifier:
            guard let cost = try? Argon2id.Cost(operations: passes, memoryBytes: UInt64(memoryKiB) << 10) else {
                throw .damaged(path: path)
            }
            self.keyDerivation = .argon2id(cost)
        case KeystoreHeader.applicationKeyIdentifier:
            // The cost fields have no meaning here; anything but zero is not a file Hush wrote.
            guard passes == 0, memoryKiB == 0 else { throw .damaged(path: path) }
            self.keyDerivation = .applicationKey
        default:
            throw .damaged(path: path)
        }
        self.version = version
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
