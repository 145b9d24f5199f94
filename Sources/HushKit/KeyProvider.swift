import HushCrypto
import HushKeystore

/// How an account's keystore is unlocked: the identity key and the database
/// key are sealed under a key derived from what this provides.
///
/// It keeps its copy of the secret in guarded memory (locked, so never
/// swapped, and wiped on release); its description never shows the secret.
public struct KeyProvider: Sendable, CustomStringConvertible {
    enum Secret: Sendable {
        case passphrase(SecureBytes, cost: Argon2id.Cost)
        case applicationKey(SecureBytes)
    }

    let secret: Secret

    /// A passphrase a person chose, stretched with Argon2id (about half a
    /// second per unlock at the default cost, so a stolen keystore resists
    /// guessing). Swift strings cannot be wiped from memory: an app that can
    /// should pass the bytes (`passphrase(bytes:)`) and overwrite its copy.
    public static func passphrase(_ passphrase: String, cost: PassphraseCost = .moderate) -> KeyProvider {
        KeyProvider(secret: .passphrase(SecureBytes(copying: passphrase.utf8, storage: .guarded), cost: cost.argon2id))
    }

    /// A passphrase's UTF-8 bytes (see `passphrase(_:cost:)`).
    public static func passphrase(bytes: [UInt8], cost: PassphraseCost = .moderate) -> KeyProvider {
        KeyProvider(secret: .passphrase(SecureBytes(copying: bytes, storage: .guarded), cost: cost.argon2id))
    }

    /// A passphrase's UTF-8 bytes, stretched at the cost `keystore` is sealed
    /// with now: for a new passphrase that keeps the cost (an
    /// application-key keystore has none, so the default cost is used).
    public static func passphrase(bytes: [UInt8], costOf keystore: KeystoreDetails) -> KeyProvider {
        KeyProvider(secret: .passphrase(SecureBytes(copying: bytes, storage: .guarded), cost: keystore.cost ?? PassphraseCost.moderate.argon2id))
    }

    /// A key the application keeps (in the platform's keychain, say):
    /// `KeyProvider.applicationKeyLength` random bytes, made by
    /// `newApplicationKey()`. It is used without stretching, so it must be
    /// random, never derived from a PIN or a short password.
    public static func applicationKey(_ key: [UInt8]) -> KeyProvider {
        KeyProvider(secret: .applicationKey(SecureBytes(copying: key, storage: .guarded)))
    }

    /// The length of an application key, in bytes.
    public static let applicationKeyLength = KeystoreApplicationKey.length

    /// A new random application key, for a new account.
    public static func newApplicationKey() -> [UInt8] {
        SystemRandom().bytes(applicationKeyLength)
    }

    /// How many keys this process has derived from passphrases (Argon2id).
    /// Each derivation holds its cost's memory while it runs (64 MiB at the
    /// interactive cost, 256 MiB at the default), so a command that derives
    /// twice can peak higher than one that derives once.
    public static var derivationsSoFar: Int { Argon2id.derivationsSoFar }

    /// Says which kind of key this is, never the key.
    public var description: String {
        switch secret {
        case .passphrase: return "KeyProvider(passphrase, redacted)"
        case .applicationKey: return "KeyProvider(application key, redacted)"
        }
    }
}

/// How hard a passphrase is stretched when a keystore is written (unlocking
/// always uses the cost stored with the keystore).
public enum PassphraseCost: Sendable, CaseIterable {
    /// Fast: for tests and devices that cannot spare the memory.
    case interactive
    /// The default (what `hush init` uses).
    case moderate
    /// Slow and memory-hungry: for a keystore that is rarely unlocked.
    case sensitive

    var argon2id: Argon2id.Cost {
        switch self {
        case .interactive: return .interactive
        case .moderate: return .moderate
        case .sensitive: return .sensitive
        }
    }
}

extension KeyProvider {
    /// Writes a new keystore holding `contents`, sealed under this key
    /// (in place of an existing one only when `replacing`).
    func create(_ keystore: KeystoreFile, holding contents: KeystoreContents, replacing: Bool = false) throws {
        switch secret {
        case let .passphrase(passphrase, cost):
            try keystore.create(contents, passphrase: passphrase, cost: cost, force: replacing)
        case let .applicationKey(key):
            try keystore.create(contents, applicationKey: key, force: replacing)
        }
    }

    /// Opens the keystore with this key.
    func unlock(_ keystore: KeystoreFile) throws -> KeystoreContents {
        switch secret {
        case let .passphrase(passphrase, _):
            return try keystore.unlock(passphrase: passphrase)
        case let .applicationKey(key):
            return try keystore.unlock(applicationKey: key)
        }
    }
}
