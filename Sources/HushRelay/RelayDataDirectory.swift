import Foundation
import Glibc
import HushCrypto

/// The relay's data directory:
///
///     relay.key    32 random bytes, mode 0600: the database key
///     relay.db     the SQLCipher database (+ -wal, -shm)
///     blobs/       encrypted attachment files, one per blob id
///
/// A copy of the directory without the key reveals nothing. By default the
/// key file sits in the directory, which protects against a lost or copied
/// database file alone; an operator who keeps the key elsewhere
/// (`keyFile`: another volume, a systemd credential) also protects against
/// a copy of the whole data directory.
public struct RelayDataDirectory: Sendable {
    public let path: String
    public let keyFile: String

    /// - Parameter keyFile: where the database key lives; nil: `DIR/relay.key`.
    public init(path: String, keyFile: String? = nil) {
        self.path = path
        self.keyFile = keyFile ?? path + "/relay.key"
    }

    /// The key file an operator chose: `--key-file`, else `$HUSH_RELAY_KEY_FILE`,
    /// else a systemd credential named `relay.key` (`$CREDENTIALS_DIRECTORY`);
    /// nil for the default inside the data directory.
    public static func keyFile(option: String?, environment: [String: String]) -> String? {
        if let option, !option.isEmpty { return option }
        if let path = environment["HUSH_RELAY_KEY_FILE"], !path.isEmpty { return path }
        if let credentials = environment["CREDENTIALS_DIRECTORY"], !credentials.isEmpty,
           access(credentials + "/relay.key", F_OK) == 0 {
            return credentials + "/relay.key"
        }
        return nil
    }
    public var databaseFile: String { path + "/relay.db" }
    public var blobDirectory: String { path + "/blobs" }

    /// Creates the directory (0700) and its blob folder when missing, then
    /// refuses to start when the directory, the blob folder or the database
    /// files are open to other users (as for the key file): someone may
    /// already have copied them, and loose modes would let the next one.
    public func prepare() throws {
        for directory in [path, blobDirectory] {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw RelayError.internalFailure("cannot create \(directory): \(String(cString: strerror(errno)))")
            }
        }
        for file in [path, blobDirectory, databaseFile, databaseFile + "-wal", databaseFile + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }
            guard info.st_mode & 0o077 == 0 else {
                let fix = info.st_mode & S_IFMT == S_IFDIR ? "700" : "600"
                throw RelayError.internalFailure("\(file) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))): " +
                                                 "run `chmod \(fix) \(file)`, and consider whether it was copied")
            }
        }
    }

    /// Reads the key file, creating it with 32 random bytes on first start.
    /// Refuses a key file that others can read or that has the wrong length.
    public func loadOrCreateKey(using random: any RandomSource = SystemRandom()) throws -> SecureBytes {
        let descriptor = open(keyFile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            let key = SecureBytes(randomCount: 32, using: random)
            let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
            close(descriptor)
            guard written == 32 else {
                unlink(keyFile)
                throw RelayError.internalFailure("cannot write the key file \(keyFile)")
            }
            return key
        }
        guard errno == EEXIST else { throw RelayError.internalFailure("cannot create the key file \(keyFile): \(String(cString: strerror(errno)))") }
        return try loadKey()
    }

    /// Reads an existing key file (the audit never creates one).
    public func loadKey() throws -> SecureBytes {
        var info = stat()
        guard stat(keyFile, &info) == 0 else { throw RelayError.notFound("key file \(keyFile)") }
        guard info.st_mode & 0o077 == 0 else {
            throw RelayError.internalFailure("the key file \(keyFile) is readable by other users: run chmod 600 on it")
        }
        let descriptor = open(keyFile, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw RelayError.internalFailure("cannot open the key file \(keyFile)") }
        defer { close(descriptor) }
        let key = SecureBytes(count: 32)
        let count = key.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        var extra: UInt8 = 0
        guard count == 32, read(descriptor, &extra, 1) == 0 else {
            throw RelayError.internalFailure("the key file \(keyFile) is not 32 bytes")
        }
        return key
    }
}
