#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens a path the user gave (a file to send, a backup archive, a
/// passphrase or recovery-key file) for reading, refusing anything but a
/// regular file before a byte is read.
///
/// A plain `open(O_RDONLY)` of a named pipe blocks until something writes
/// to it: in the daemon that parks a thread of Swift's small concurrency
/// pool for good, and two such calls freeze every request. So the path is
/// opened with O_NONBLOCK (a FIFO then opens at once), the descriptor's own
/// `fstat` decides (no window between a check and the open), and only a
/// regular file is kept, with O_NONBLOCK cleared again for the reads.
/// Symbolic links are followed: a link to a photo is a fine thing to send;
/// what it points at is checked like any path.
public enum RegularFile {
    /// A descriptor open for reading on the regular file at `path`. It is the
    /// caller's from here: the caller closes it, once. On every failure
    /// nothing is left open.
    ///
    /// With `acceptingPipes` a named pipe or a character device is read too,
    /// and the open waits for a pipe's writer as any reader's does: for a
    /// secret a person hands over that way (`--passphrase-file <(pass show
    /// hush)`, `/dev/stdin`), read by the command's own process, never by
    /// the daemon for a client.
    public static func openForReading(_ path: String, acceptingPipes: Bool = false) throws(RegularFileError) -> Int32 {
        let descriptor = open(path, O_RDONLY | (acceptingPipes ? 0 : O_NONBLOCK) | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw RegularFileError(path: path, reason: .system(operation: "open", errno: errno)) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failing(descriptor, path, "inspect") }
        let type = info.st_mode & S_IFMT
        if acceptingPipes && (type == S_IFIFO || type == S_IFCHR) { return descriptor }
        guard type == S_IFREG else {
            close(descriptor)
            throw RegularFileError(path: path, reason: .notRegularFile(kind: kind(of: info.st_mode)))
        }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else { throw failing(descriptor, path, "open") }
        return descriptor
    }

    /// Closes `descriptor` and returns the error that made us give it up.
    private static func failing(_ descriptor: Int32, _ path: String, _ operation: String) -> RegularFileError {
        let code = errno
        close(descriptor)
        return RegularFileError(path: path, reason: .system(operation: operation, errno: code))
    }

    /// What a file that is not a regular one is, in words a user knows.
    static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }
}

/// Why `RegularFile.openForReading` refused a path: its description says
/// what went wrong and what to do (each caller wraps it in its own error).
public struct RegularFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// `operation` failed with `errno` (no such file, no permission…).
        case system(operation: String, errno: Int32)
        /// The path names something that cannot be read as a file: `kind` says what.
        case notRegularFile(kind: String)
    }

    public let path: String
    public let reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// Whether the path names nothing at all.
    public var isMissing: Bool { reason == .system(operation: "open", errno: ENOENT) }

    /// What went wrong, without advice.
    public var problem: String {
        switch reason {
        case let .system(operation, code): return "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        case let .notRegularFile(kind): return "\(path) is \(kind), not a regular file"
        }
    }

    /// What the user can do about it (nil for a system error, whose words say enough).
    public var suggestion: String? {
        guard case .notRegularFile = reason else { return nil }
        return "give the path of a regular file (to use what a pipe or device carries, save it to a file first)"
    }

    public var description: String { suggestion.map { "\(problem): \($0)" } ?? problem }
}
