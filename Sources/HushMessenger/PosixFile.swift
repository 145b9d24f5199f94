#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto

/// An open file descriptor with the few calls attachments need; closes on release.
final class PosixFile {
    let path: String
    private(set) var descriptor: Int32
    /// Asks the kernel to start writing each 8 MiB to the disk as soon as
    /// it is written (`startWriteback`), for a file written from its start
    /// and synced at the end: the sync then finds little left to write.
    var writesBehind = false
    /// Bytes written since the file's start, and how many of them the disk was asked to take.
    private var written: Int64 = 0
    private var writebackRequested: Int64 = 0
    static let writebackBytes: Int64 = 8 << 20

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close() }

    /// A regular file opened for reading; anything else (a named pipe, which
    /// would block the open, a device, a directory) is refused unread.
    static func openForReading(_ path: String) throws(AttachmentFileError) -> PosixFile {
        let descriptor: Int32
        do { descriptor = try RegularFile.openForReading(path) } catch { throw AttachmentFileError(exactly: error.description) }
        return PosixFile(path: path, descriptor: descriptor)
    }

    /// A new file, 0600, refused when `path` exists (no file is ever overwritten).
    static func create(_ path: String) throws(AttachmentFileError) -> PosixFile {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw AttachmentFileError("cannot create", path: path, errno: errno) }
        return PosixFile(path: path, descriptor: descriptor)
    }

    /// A new file with no name in `folder` (O_TMPFILE, 0600): the kernel frees
    /// it when the process dies, until `link(as:)` gives it one. Nil where the
    /// file system cannot make one, or /proc (through which it is linked) is
    /// missing, and on every system but Linux (no O_TMPFILE there): the caller
    /// then falls back to a named file.
    static func createUnnamed(in folder: String) throws(AttachmentFileError) -> PosixFile? {
        #if os(Linux)
        guard access("/proc/self/fd", F_OK) == 0 else { return nil }
        let descriptor = open(folder, unnamedFileFlag | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 { return PosixFile(path: folder, descriptor: descriptor) }
        switch errno {
        case EOPNOTSUPP, EISDIR, EINVAL: return nil
        default: throw AttachmentFileError("cannot create a file in", path: folder, errno: errno)
        }
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// O_TMPFILE, which Glibc's Swift overlay does not import (a compound
    /// macro): its own bit is the same on x86_64, arm64 and the generic ABI
    /// (a kernel value, so Musl's too).
    private static let unnamedFileFlag: Int32 = 0o20000000 | O_DIRECTORY
    #endif

    /// Gives an unnamed file the name `path`; refused (EEXIST) when it exists.
    func link(as path: String) throws(AttachmentFileError) {
        #if os(Linux)
        guard linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 else {
            throw AttachmentFileError("cannot create", path: path, errno: errno)
        }
        #else
        // Unreached: `createUnnamed` makes no unnamed file outside Linux.
        throw AttachmentFileError("cannot create", path: path, errno: ENOTSUP)
        #endif
    }

    /// An existing file opened to add to its end.
    static func openForAppending(_ path: String) throws(AttachmentFileError) -> PosixFile {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw AttachmentFileError("cannot open", path: path, errno: errno) }
        return PosixFile(path: path, descriptor: descriptor)
    }

    var size: Int64 {
        get throws(AttachmentFileError) {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw AttachmentFileError("cannot inspect", path: path, errno: errno) }
            guard info.st_mode & S_IFMT == S_IFREG else { throw AttachmentFileError("not a regular file:", path: path) }
            return Int64(info.st_size)
        }
    }

    /// Up to `count` bytes: fewer only at the end of the file.
    func read(upTo count: Int) throws(AttachmentFileError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let filled = try out.withUnsafeMutableBytes { buffer -> Result<Int, AttachmentFileError> in
            do throws(AttachmentFileError) { return .success(try read(into: buffer)) } catch { return .failure(error) }
        }.get()
        out.removeLast(count - filled)
        return out
    }

    /// Fills `buffer` from the file; returns the bytes read, fewer only at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(AttachmentFileError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = systemRead(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw AttachmentFileError("cannot read", path: path, errno: errno) }
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    func write(_ bytes: [UInt8]) throws(AttachmentFileError) {
        // withUnsafeBytes rethrows untyped: the typed error is carried out as a value.
        let failure = bytes.withUnsafeBytes { bytes -> AttachmentFileError? in
            do throws(AttachmentFileError) { try write(bytes) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AttachmentFileError) {
        var offset = 0
        while offset < bytes.count {
            let wrote = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { throw AttachmentFileError("cannot write", path: path, errno: errno) }
            offset += wrote
        }
        written += Int64(bytes.count)
        if writesBehind && written - writebackRequested >= Self.writebackBytes {
            startWriteback(from: writebackRequested, count: written - writebackRequested)
            writebackRequested = written
        }
    }

    /// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts writing the
    /// range to the disk without waiting for it. Durability still rests on
    /// the final sync alone. Linux only (elsewhere the sync does it all).
    private func startWriteback(from offset: Int64, count: Int64) {
        #if os(Linux)
        _ = syncFileRange?(descriptor, offset, count, 2 /* SYNC_FILE_RANGE_WRITE */)
        #endif
    }

    func writeZeros(_ count: UInt64) throws(AttachmentFileError) {
        let zeros = [UInt8](repeating: 0, count: Int(min(count, 64 << 10)))
        var remaining = count
        while remaining > 0 {
            let step = Int(min(remaining, UInt64(zeros.count)))
            try write(step == zeros.count ? zeros : Array(zeros[..<step]))
            remaining -= UInt64(step)
        }
    }

    /// Empties the file and writes from its start again.
    func truncate() throws(AttachmentFileError) {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw AttachmentFileError("cannot truncate", path: path, errno: errno)
        }
        written = 0
        writebackRequested = 0
    }

    /// Flushes to the disk: what follows (a rename, a link) may rely on the bytes being there.
    func sync() throws(AttachmentFileError) {
        guard fsync(descriptor) == 0 else { throw AttachmentFileError("cannot sync", path: path, errno: errno) }
    }

    /// Flushes to the disk and closes.
    func syncAndClose() throws(AttachmentFileError) {
        try sync()
        close()
    }

    /// Closes now rather than on release; closing again does nothing.
    func close() {
        if descriptor >= 0 { systemClose(descriptor) }
        descriptor = -1
    }
}

#if os(Linux)
/// sync_file_range(2), which Swift's Glibc module does not declare: looked up
/// once in the C library (nil where it is missing: write-behind is skipped).
private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
private let syncFileRange: SyncFileRange? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range")
    .map { unsafeBitCast($0, to: SyncFileRange.self) }
#endif
