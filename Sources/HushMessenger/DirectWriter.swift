#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes an attachment blob file from its start past the page cache
/// (O_DIRECT), from one reused block-aligned buffer: the sealed copy of a
/// file being sent and the encrypted copy of a file being downloaded.
///
/// On the shared VMs Hush is measured on, a buffered write of fresh file
/// pages costs far more than the disk write itself (each page of page cache
/// is memory touched for the first time): 256 MiB took 4.2 s through the
/// page cache with its fsync and 0.27 s with O_DIRECT (dd, same minute). The
/// blob is encrypted, so the buffer holds nothing secret. The last partial
/// block goes through the page cache after clearing O_DIRECT; where O_DIRECT
/// is refused (tmpfs, some network filesystems, systems without it) every
/// write does. The caller still syncs the file: O_DIRECT does not flush the
/// disk's cache.
final class DirectWriter {
    private let file: PosixFile
    private var direct: Bool
    private let buffer: UnsafeMutableRawBufferPointer
    private var filled = 0
    /// The unit O_DIRECT needs for addresses, lengths and offsets: 4096
    /// covers every logical block size Linux filesystems use.
    static let alignment = 4096
    static let bufferLength = 1 << 20
    /// O_DIRECT, which Glibc's headers define only for C with _GNU_SOURCE:
    /// its value per architecture (asm-generic/fcntl.h, arm64's own); 0
    /// elsewhere, where every write goes through the page cache.
    #if os(Linux) && arch(x86_64)
    static let directFlag: Int32 = 0o40000
    #elseif os(Linux) && arch(arm64)
    static let directFlag: Int32 = 0o200000
    #else
    static let directFlag: Int32 = 0
    #endif

    /// Writes `file`, which must be empty and at its start.
    init(_ file: PosixFile) {
        self.file = file
        let flags = fcntl(file.descriptor, F_GETFL)
        direct = Self.directFlag != 0 && flags >= 0 && fcntl(file.descriptor, F_SETFL, flags | Self.directFlag) == 0
        buffer = .allocate(byteCount: Self.bufferLength, alignment: Self.alignment)
    }

    deinit { buffer.deallocate() }

    /// Appends `bytes` to the file.
    func write(_ bytes: UnsafeRawBufferPointer) throws(AttachmentFileError) {
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
    func writeZeros(_ count: UInt64) throws(AttachmentFileError) {
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
    func finish() throws(AttachmentFileError) {
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
        let flags = fcntl(file.descriptor, F_GETFL)
        guard flags >= 0, fcntl(file.descriptor, F_SETFL, flags & ~Self.directFlag) == 0 else {
            throw AttachmentFileError("cannot write", path: file.path, errno: errno)
        }
        direct = false
    }

    /// Writes the buffer's first `count` bytes and moves what follows them to its front.
    private func flush(_ count: Int) throws(AttachmentFileError) {
        var done = 0
        while done < count {
            let written = systemWrite(file.descriptor, buffer.baseAddress! + done, count - done)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EINVAL && direct { try goThroughPageCache(); continue }
                throw AttachmentFileError("cannot write", path: file.path, errno: errno)
            }
            done += written
        }
        let left = filled - count
        if left > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + count, byteCount: left) }
        filled = left
    }
}
