import Foundation
import Glibc
import HushCrypto

/// The relay's data directory:
///
///     relay.key    32 random bytes, mode 0600: the database key
///     relay.db     the SQLCipher database (+ -wal, -shm)
///     blobs/       encrypted attachment files, one per blob id
///
/// A copy of the directory without `relay.key` reveals nothing; the key file
/// is what an operator protects (or keeps on another volume).
public struct RelayDataDirectory: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public var keyFile: String { path + "/relay.key" }
    public var databaseFile: String { path + "/relay.db" }
    public var blobDirectory: String { path + "/blobs" }

    /// Creates the directory (0700) and its blob folder when missing.
    public func prepare() throws {
        for directory in [path, blobDirectory] {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw RelayError.internalFailure("cannot create \(directory): \(String(cString: strerror(errno)))")
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
