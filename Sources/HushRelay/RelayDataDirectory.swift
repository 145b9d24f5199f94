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
/// Why the relay refuses its data directory at start: each says what is
/// wrong and what to do. `hush relay serve` exits 14 for an unsafe one (as
/// the client does for its home), 26 for one another relay serves, 1 else.
public enum RelayDataDirectoryError: Error, Sendable, CustomStringConvertible {
    /// Open to other users, or owned by another user.
    case unsafe(String)
    /// Another relay process serves it (its lock is held).
    case inUse(String)
    /// Its database and key file do not belong together (one is missing or empty).
    case incomplete(String)

    public var description: String {
        switch self {
        case let .unsafe(what), let .inUse(what), let .incomplete(what): what
        }
    }
}

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
    /// `checkingOwner`: false for PostgreSQL relays, whose instances share the
    /// directory's blobs, on a network file system where root's files may
    /// belong to `nobody` (root_squash) and no chown can fix it.
    public func prepare(checkingOwner: Bool = true) throws {
        for directory in [path, blobDirectory] {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw RelayError.internalFailure("cannot create \(directory): \(String(cString: strerror(errno)))")
            }
        }
        for file in [path, blobDirectory, databaseFile, databaseFile + "-wal", databaseFile + "-shm", lockFile] {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }
            guard info.st_mode & 0o077 == 0 else {
                let fix = info.st_mode & S_IFMT == S_IFDIR ? "700" : "600"
                throw RelayDataDirectoryError.unsafe("\(file) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))): " +
                                                     "run `chmod \(fix) \(file)`, and consider whether it was copied")
            }
            // Another user's directory or file: its owner can read what the relay stores, and the
            // relay's own modes say nothing about that (a walkthrough ran on a directory of `nobody`).
            guard !checkingOwner || info.st_uid == geteuid() else {
                throw RelayDataDirectoryError.unsafe("\(file) belongs to another user (uid \(info.st_uid)), who can read what the relay stores: "
                    + "run the relay as that user, or give it a data directory of its own (`chown -R \(geteuid()) \(path)` if it is the relay's)")
            }
        }
    }

    /// The lock a relay on the embedded database holds on its directory for
    /// as long as it runs (PostgreSQL relays share a directory's blobs and
    /// take none).
    public var lockFile: String { path + "/relay.lock" }

    /// Takes the directory for this process alone: a second relay on the
    /// same SQLCipher file would take deposits whose pushes never reach the
    /// first one's sockets (a walkthrough: messages reached a listener only
    /// on its next sync). The returned lock holds until it is released or
    /// the process ends (the kernel drops it with the descriptor).
    public func lockExclusively() throws -> RelayDirectoryLock {
        let descriptor = open(lockFile, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw RelayDataDirectoryError.unsafe("cannot open \(lockFile): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            close(descriptor)
            guard reason == EWOULDBLOCK else {
                throw RelayDataDirectoryError.inUse("cannot lock \(lockFile): \(String(cString: strerror(reason)))")
            }
            throw RelayDataDirectoryError.inUse("another relay serves \(path) (it holds \(lockFile)): stop it first, "
                + "or give this one a data directory of its own (`hush audit relay --data \(path)` reads it beside a running relay)")
        }
        return RelayDirectoryLock(descriptor: descriptor)
    }

    /// Refuses a database and key file that do not belong together, before
    /// either is made: a key file beside a missing or empty database (a
    /// deleted or truncated `relay.db` silently became a new empty relay,
    /// every registration and waiting envelope gone), or a database whose
    /// key file is missing (a new key was made and then refused, and stayed
    /// on disk). A key kept outside the directory (`--key-file`, a systemd
    /// credential) may start a new directory.
    public func requireMatchingDatabaseAndKey(keyInDirectory: Bool) throws {
        // A first start that died after making its key and before naming it (`loadOrCreateKey`
        // writes it beside, `commitKey` names it once the database exists): a database it made is
        // its; with none, it made nothing and goes.
        var database = stat(), key = stat()
        if access(keyFile, F_OK) != 0, access(pendingKeyFile, F_OK) == 0 {
            if stat(databaseFile, &database) == 0, database.st_size > 0 { try commitKey() } else { unlink(pendingKeyFile) }
        }
        let databaseSize = stat(databaseFile, &database) == 0 ? Int64(database.st_size) : nil
        let keyExists = stat(keyFile, &key) == 0
        if keyInDirectory, keyExists, (databaseSize ?? 0) == 0 {
            let state = databaseSize == nil ? "missing" : "empty"
            throw RelayDataDirectoryError.incomplete("\(databaseFile) is \(state) but its key file \(keyFile) is there: the relay's registrations "
                + "and waiting envelopes were lost with it. Restore relay.db from a backup; to start an empty relay here instead, move "
                + "relay.key and blobs/ out of \(path) first")
        }
        if !keyExists, let databaseSize, databaseSize > 0 {
            throw RelayDataDirectoryError.incomplete("\(databaseFile) exists but its key file \(keyFile) is missing, and nothing opens it "
                + "without that key: restore the key file (or name it with --key-file / HUSH_RELAY_KEY_FILE)")
        }
    }

    /// A first start's key until its database exists (`commitKey`).
    var pendingKeyFile: String { keyFile + ".new" }

    /// Names the first start's key the key file, once the database was made
    /// with it (a start that dies before leaves no key beside a missing
    /// database, which the next start would refuse as a lost one).
    public func commitKey() throws {
        guard access(pendingKeyFile, F_OK) == 0 else { return }
        guard rename(pendingKeyFile, keyFile) == 0 else {
            throw RelayError.internalFailure("cannot name the key file \(keyFile): \(String(cString: strerror(errno)))")
        }
        let directory = open((keyFile as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// Reads the key file, or on first start makes 32 random bytes in
    /// `relay.key.new` (named the key file by `commitKey` once the database
    /// exists). Refuses a key file that others can read or that has the wrong length.
    public func loadOrCreateKey(using random: any RandomSource = SystemRandom()) throws -> SecureBytes {
        if access(keyFile, F_OK) == 0 { return try loadKey() }
        unlink(pendingKeyFile)
        let descriptor = open(pendingKeyFile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            let key = SecureBytes(randomCount: 32, using: random)
            let written = key.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
            close(descriptor)
            guard written == 32 else {
                unlink(pendingKeyFile)
                throw RelayError.internalFailure("cannot write the key file \(pendingKeyFile)")
            }
            return key
        }
        throw RelayError.internalFailure("cannot create the key file \(pendingKeyFile): \(String(cString: strerror(errno)))")
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

/// A relay's hold on its data directory (`RelayDataDirectory.lockExclusively`):
/// the one owner of the lock file's descriptor, closed once.
public final class RelayDirectoryLock: @unchecked Sendable {
    private var descriptor: Int32
    private let guardLock = NSLock()

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Releases the directory (also done when this is deinitialised).
    public func release() {
        guardLock.lock()
        defer { guardLock.unlock() }
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
