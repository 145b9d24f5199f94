#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto

/// Writes a new file from its start past the page cache (O_DIRECT), from
/// one reused block-aligned buffer: the sealed copy of a file being sent,
/// the encrypted copy of a file being downloaded, and the files a backup
/// restore writes (HushKit's `DirectFileWriter`).
///
/// On the shared VMs Hush is measured on, a buffered write of fresh file
/// pages costs far more than the disk write itself (each page of page cache
/// is memory touched for the first time): 256 MiB took 4.2 s through the
/// page cache with its fsync and 0.27 s with O_DIRECT (dd, same minute);
/// `perf` over a full-scale restore put half of its samples in that copy
/// (`copy_folio_from_iter_atomic`). The last partial block goes through the
/// page cache after clearing O_DIRECT; where O_DIRECT is refused (tmpfs,
/// some network filesystems, systems without it) every write does. The
/// buffer is wiped before it is freed: a restore writes plaintext through
/// it. The caller still syncs the file: O_DIRECT does not flush the disk's
/// cache.
public final class DirectWriter {
    private let descriptor: Int32
    private let path: String
    /// The file's owner, held so that the descriptor stays open while this
    /// writes (nil: the caller keeps it open).
    private let owner: PosixFile?
    private var direct: Bool
    private let buffer: UnsafeMutableRawBufferPointer
    private var filled = 0
    /// The unit O_DIRECT needs for addresses, lengths and offsets: 4096
    /// covers every logical block size Linux filesystems use.
    public static let alignment = 4096
    public static let bufferLength = 1 << 20
    /// O_DIRECT, which Glibc's headers define only for C with _GNU_SOURCE:
    /// its value per architecture (asm-generic/fcntl.h, arm64's own); 0
    /// elsewhere, where every write goes through the page cache.
    #if os(Linux) && arch(x86_64)
    public static let directFlag: Int32 = 0o40000
    #elseif os(Linux) && arch(arm64)
    public static let directFlag: Int32 = 0o200000
    #else
    public static let directFlag: Int32 = 0
    #endif

    /// Writes `file`, which must be empty and at its start.
    convenience init(_ file: PosixFile) {
        self.init(descriptor: file.descriptor, path: file.path, owner: file)
    }

    /// Writes the file open for writing on `descriptor`, which must be empty
    /// and at its start; the caller keeps it open until `finish()` and
    /// closes it. `path` names it in errors.
    public convenience init(descriptor: Int32, path: String) {
        self.init(descriptor: descriptor, path: path, owner: nil)
    }

    private init(descriptor: Int32, path: String, owner: PosixFile?) {
        self.descriptor = descriptor
        self.path = path
        self.owner = owner
        let flags = fcntl(descriptor, F_GETFL)
        direct = Self.directFlag != 0 && flags >= 0 && fcntl(descriptor, F_SETFL, flags | Self.directFlag) == 0
        buffer = .allocate(byteCount: Self.bufferLength, alignment: Self.alignment)
    }

    deinit {
        ConstantTime.wipe(buffer)
        buffer.deallocate()
    }

    /// Appends `bytes` to the file.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(AttachmentFileError) {
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, buffer.count - filled)
            (buffer.baseAddress! + filled).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            filled += count
            offset += count
            if filled == buffer.count { try flush(filled) }
        }
    }

    /// Appends `count` zero bytes.
    public func writeZeros(_ count: UInt64) throws(AttachmentFileError) {
        var remaining = count
        while remaining > 0 {
            let step = Int(min(remaining, UInt64(buffer.count - filled)))
            (buffer.baseAddress! + filled).initializeMemory(as: UInt8.self, repeating: 0, count: step)
            filled += step
            remaining -= UInt64(step)
            if filled == buffer.count { try flush(filled) }
        }
    }

    /// Writes what is still in the buffer; the file is whole after it.
    public func finish() throws(AttachmentFileError) {
        let whole = filled - filled % Self.alignment
        if whole > 0 { try flush(whole) }
        guard filled > 0 else { return }
        try goThroughPageCache()
        try flush(filled)
    }

    /// Clears O_DIRECT: for the last partial block, and for a filesystem
    /// that took the flag but refuses its writes.
    private func goThroughPageCache() throws(AttachmentFileError) {
        guard direct else { return }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~Self.directFlag) == 0 else {
            throw AttachmentFileError("cannot write", path: path, errno: errno)
        }
        direct = false
    }

    /// Writes the buffer's first `count` bytes and moves what follows them to its front.
    private func flush(_ count: Int) throws(AttachmentFileError) {
        var done = 0
        while done < count {
            let written = systemWrite(descriptor, buffer.baseAddress! + done, count - done)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EINVAL && direct { try goThroughPageCache(); continue }
                throw AttachmentFileError("cannot write", path: path, errno: errno)
            }
            done += written
        }
        let left = filled - count
        if left > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + count, byteCount: left) }
        filled = left
    }
}
