#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything that can go wrong with the data directory or the keystore.
/// Messages say what happened and what the user can do; none carries a
/// passphrase, a key, or which internal check failed.
public enum KeystoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The passphrase does not open the keystore (or the file was altered:
    /// authenticated encryption cannot tell the two apart, by design).
    case wrongPassphrase
    /// The application key does not open the keystore (or the file was
    /// altered; as with a passphrase, the two cannot be told apart).
    case wrongApplicationKey
    /// An application key that is not exactly 32 bytes.
    case applicationKeyWrongLength(found: Int)
    /// A passphrase was given to a keystore sealed under an application key.
    case unlockedByApplicationKey(path: String)
    /// An application key was given to a keystore sealed under a passphrase.
    case unlockedByPassphrase(path: String)
    /// The keystore file is truncated or malformed.
    case damaged(path: String)
    /// The keystore was written by a newer version of Hush.
    case newerVersion(found: UInt8, supported: UInt8)
    /// No keystore in the data directory yet.
    case noIdentity(home: String)
    /// `hush init` would overwrite an existing identity.
    case identityExists(path: String)
    /// The data directory or a file in it is readable or writable by others.
    case badPermissions(path: String, mode: UInt32)
    /// The data directory or a file in it belongs to another user.
    case wrongOwner(path: String)
    /// No passphrase could be read (no terminal, unreadable file, empty value).
    case passphraseUnavailable(String)
    /// The two passphrases typed on creation differ.
    case passphraseMismatch
    /// An unknown `HUSH_KDF_COST` or `--kdf-cost` value.
    case unknownCost(String)
    /// A file-system operation failed.
    case io(operation: String, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .wrongPassphrase:
            return "wrong passphrase: the keystore could not be unlocked (check the passphrase, or that the keystore file was not modified)"
        case .wrongApplicationKey:
            return "wrong application key: the keystore could not be unlocked (check that the application passes the key this keystore was created with, or that the keystore file was not modified)"
        case let .applicationKeyWrongLength(found):
            return "the application key is \(found) bytes but must be exactly 32 random bytes: generate it with a cryptographic random source and keep it (for example in the platform keychain); never derive it from a PIN or password"
        case let .unlockedByApplicationKey(path):
            return "the keystore at \(path) is unlocked by an application key, not a passphrase: open it with the application that created it"
        case let .unlockedByPassphrase(path):
            return "the keystore at \(path) is unlocked by a passphrase, not an application key: open it with its passphrase (for example with `hush`)"
        case let .damaged(path):
            return "the keystore at \(path) is damaged or not a Hush keystore: restore it from a backup"
        case let .newerVersion(found, supported):
            return "the keystore has format version \(found) but this Hush reads up to version \(supported): update Hush"
        case let .noIdentity(home):
            return "no identity in \(home) yet: create one first"
        case let .identityExists(path):
            return "an identity already exists at \(path): refusing to overwrite it"
        case let .badPermissions(path, mode):
            let octal = String(mode & 0o777, radix: 8)
            // A directory needs its owner's x bit to be used at all: 700, not go-rwx on a 644.
            let fix = mode & UInt32(S_IFMT) == UInt32(S_IFDIR) ? "700" : "600"
            return "\(path) has permissions \(octal), open to other users: run `chmod \(fix) \(path)` and try again"
        case let .wrongOwner(path):
            return "\(path) belongs to another user: Hush only uses a data directory owned by the current user"
        case let .passphraseUnavailable(reason):
            return "no passphrase: \(reason)"
        case .passphraseMismatch:
            return "the passphrases do not match: nothing was changed, try again"
        case let .unknownCost(name):
            return "unknown key-derivation cost '\(name)': use interactive, moderate or sensitive"
        case let .io(operation, path, code):
            return "could not \(operation) \(path): \(String(cString: strerror(code)))"
        }
    }
}
