#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto

/// Replaces a file so that a crash at any moment leaves either the old or the
/// new contents: write a temporary file in the same directory, fsync it,
/// rename it over the target (atomic on POSIX), then fsync the directory so
/// the rename itself is durable.
public enum AtomicFile {
    /// Temporary files start with this prefix; readers ignore them and the
    /// next write removes leftovers from an interrupted one.
    public static let temporaryPrefix = ".tmp-"

    public static func write(_ bytes: [UInt8], to path: String, random: any RandomSource = SystemRandom()) throws(KeystoreError) {
        let directory = parentDirectory(of: path)
        let name = String(path.split(separator: "/").last ?? Substring(path))
        removeLeftovers(in: directory, for: name)
        let temporary = directory + "/" + temporaryPrefix + name + "-" + Hex.encode(random.bytes(6))
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(operation: "create", path: temporary, errno: errno) }
        var closed = false
        defer {
            if !closed { close(descriptor) }
        }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                systemWrite(descriptor, raw.baseAddress! + written, raw.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let code = errno
                unlink(temporary)
                throw .io(operation: "write", path: temporary, errno: code)
            }
            written += result
        }
        guard fsync(descriptor) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io(operation: "flush", path: temporary, errno: code)
        }
        close(descriptor)
        closed = true
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .io(operation: "replace", path: path, errno: code)
        }
        try syncDirectory(directory)
    }

    public static func syncDirectory(_ directory: String) throws(KeystoreError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io(operation: "open", path: directory, errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .io(operation: "flush", path: directory, errno: errno) }
    }

    /// Reads at most `limit` bytes; a larger file is reported as too large
    /// (nil), and so is anything but a regular file (a named pipe is refused
    /// unread rather than waited on).
    public static func read(_ path: String, limit: Int) throws(KeystoreError) -> [UInt8]? {
        let descriptor: Int32
        do { descriptor = try RegularFile.openForReading(path) } catch {
            guard case let .system(operation, code) = error.reason else { return nil }
            throw .io(operation: operation, path: path, errno: code)
        }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: limit + 1)
        var total = 0
        while total < buffer.count {
            let result = buffer.withUnsafeMutableBytes { raw in
                systemRead(descriptor, raw.baseAddress! + total, raw.count - total)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", path: path, errno: errno)
            }
            if result == 0 { break }
            total += result
        }
        guard total <= limit else { return nil }
        return Array(buffer[0..<total])
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func removeLeftovers(in directory: String, for name: String) {
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        let prefix = temporaryPrefix + name + "-"
        while let entry = readdir(handle) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if entryName.hasPrefix(prefix) { unlink(directory + "/" + entryName) }
        }
    }
}
