#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Who may use a data directory at a time, held for as long as an account
/// is open: any number of short-lived processes together (shared), or one
/// daemon alone (exclusive), so that a daemon is never a second writer
/// beside a command and a command never a second writer beside a daemon.
///
/// It is an advisory `flock` on a file of its own (`lock`), never on the
/// database: SQLite keeps its own locks on `messages.db`, and opening or
/// closing that file outside SQLite would drop them. The kernel releases the
/// lock when its holder exits, however it exits (kill -9 included), so a
/// crashed process never leaves the home locked.
public final class HomeLock: Sendable {
    public enum Mode: Sendable, Equatable {
        /// Held by every process that opens the account on its own (a `hush`
        /// command, `hush listen`, an app): they may run side by side.
        case shared
        /// Held by the daemon: no other process opens the account while it runs.
        case exclusive
    }

    /// The lock file's name in the data directory.
    public static let fileName = "lock"

    public let mode: Mode
    /// The open lock file: owned here, closed exactly once (by `release()` or deinit).
    private let descriptor: Mutex<Int32>

    private init(descriptor: Int32, mode: Mode) {
        self.descriptor = Mutex(descriptor)
        self.mode = mode
    }

    deinit { release() }

    /// Takes the lock in `mode` without waiting, or returns nil when another
    /// process holds it in a mode that excludes this one (`holders(in:)` says who).
    public static func acquire(_ mode: Mode, in home: DataDirectory) throws(KeystoreError) -> HomeLock? {
        let path = home.file(fileName)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .io(operation: "open the lock file", path: path, errno: errno) }
        if flock(descriptor, (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 {
            return HomeLock(descriptor: descriptor, mode: mode)
        }
        let failure = errno
        close(descriptor)
        if failure == EWOULDBLOCK { return nil }
        throw .io(operation: "lock", path: path, errno: failure)
    }

    /// Lets the lock go (the account it guarded must no longer be used).
    public func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            close(descriptor)
            descriptor = -1
        }
    }

    /// A process that holds the lock, as the kernel lists it (`/proc/locks`).
    public struct Holder: Sendable, Equatable, CustomStringConvertible {
        public let pid: Int32
        public let mode: Mode
        /// The holder's command line (program name and first arguments), when readable.
        public let command: String?

        public var description: String {
            "pid \(pid)" + (command.map { " (\($0))" } ?? "")
        }
    }

    /// The processes holding the home's lock now (empty when none, or where
    /// the kernel does not list locks). Read from `/proc/locks`, so it names
    /// holders of any user; the directory's 0700 already keeps other users out.
    public static func holders(in home: DataDirectory) -> [Holder] {
        #if os(Linux)
        var info = stat()
        guard stat(home.file(fileName), &info) == 0, let table = readSmallFile("/proc/locks") else { return [] }
        // Linux's encoding of dev_t (glibc's gnu_dev_major/minor, which Swift does not import).
        let dev = UInt64(info.st_dev)
        let majorNumber = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minorNumber = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        var holders: [Holder] = []
        // "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF"; blocked waiters carry "->" and hold nothing.
        for line in table.split(separator: "\n") where !line.contains("->") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]) else { continue }
            let file = fields[5].split(separator: ":")
            guard file.count == 3, UInt64(file[2]) == UInt64(info.st_ino),
                  UInt64(file[0], radix: 16) == majorNumber, UInt64(file[1], radix: 16) == minorNumber else { continue }
            holders.append(Holder(pid: pid, mode: fields[3] == "WRITE" ? .exclusive : .shared, command: commandLine(of: pid)))
        }
        return holders
        #else
        // Other systems list no file locks: a refusal then names no holder.
        return []
        #endif
    }

    /// The first words of a process's command line, printable.
    private static func commandLine(of pid: Int32) -> String? {
        #if os(Linux)
        guard let raw = readSmallFile("/proc/\(pid)/cmdline") else { return nil }
        var words = raw.split(separator: "\0").prefix(3).map(String.init)
        guard !words.isEmpty else { return nil }
        if let slash = words[0].lastIndex(of: "/") { words[0] = String(words[0][words[0].index(after: slash)...]) }
        let text = words.joined(separator: " ")
        let printable = text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
        return String(String.UnicodeScalarView(printable.prefix(80)))
        #else
        return nil
        #endif
    }

    /// Reads a small pseudo-file (whose size `stat` does not tell) whole.
    private static func readSmallFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < 4 << 20 {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
