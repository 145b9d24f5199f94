import Foundation
import HushCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a new file past the page cache (O_DIRECT), from one reused
/// block-aligned buffer: what a restore writes its attachment files with.
///
/// `perf` over a full-scale restore (1 GiB of files) put half of its samples
/// in the kernel copying each written chunk into newly allocated page-cache
/// pages (`copy_folio_from_iter_atomic`; `cp -r` spends 82 % of its own time
/// in the same copy). Written directly, the disk reads the bytes from this
/// buffer, which stays the same memory for the whole restore. The last piece
/// of a file (not a whole number of blocks) is written through the page
/// cache after clearing O_DIRECT. Where O_DIRECT is refused, at the open or
/// at a write (tmpfs, some network filesystems), the file is written through
/// the page cache as before.
/// The caller still syncs the file (O_DIRECT does not flush the disk's cache).
final class DirectFileWriter {
    let handle: FileHandle
    let path: String
    private var direct: Bool
    private let buffer: UnsafeMutableRawBufferPointer
    private var filled = 0
    /// The unit O_DIRECT needs for addresses, lengths and offsets: 4096
    /// covers every logical block size Linux filesystems use.
    static let alignment = 4096
    static let bufferLength = 1 << 20
    /// Glibc's headers define O_DIRECT only for C with _GNU_SOURCE, so Swift
    /// does not see it: its value per architecture (asm-generic/fcntl.h,
    /// arm64's own). Elsewhere 0: every file goes through the page cache.
    #if os(Linux) && arch(x86_64)
    static let directFlag: Int32 = 0o40000
    #elseif os(Linux) && arch(arm64)
    static let directFlag: Int32 = 0o200000
    #else
    static let directFlag: Int32 = 0
    #endif

    /// Creates `path` (refused when it exists) with mode 0600.
    init(creating path: String) throws(HushError) {
        var descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | Self.directFlag, 0o600)
        var direct = Self.directFlag != 0
        if descriptor < 0 && errno == EINVAL && direct {
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            direct = false
        }
        guard descriptor >= 0 else {
            throw HushError(.storage, reason: "could not create \(path): \(String(cString: strerror(errno)))")
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.path = path
        self.direct = direct
        buffer = .allocate(byteCount: Self.bufferLength, alignment: Self.alignment)
    }

    deinit {
        // Plaintext of a file of the account: wiped before it is freed.
        ConstantTime.wipe(buffer)
        buffer.deallocate()
    }

    /// Appends `bytes` to the file.
    func append(_ bytes: UnsafeRawBufferPointer) throws(HushError) {
        var offset = 0
        while offset < bytes.count {
            let count = min(bytes.count - offset, buffer.count - filled)
            (buffer.baseAddress! + filled).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            filled += count
            offset += count
            if filled == buffer.count { try flush(filled) }
        }
    }

    /// Writes what is still in the buffer; the file is complete after it.
    func finish() throws(HushError) {
        let whole = filled - filled % Self.alignment
        if whole > 0 { try flush(whole) }
        guard filled > 0 else { return }
        try goThroughPageCache()
        try flush(filled)
    }

    /// Clears O_DIRECT: for the last partial block, and for a filesystem
    /// that opened the file with it but refuses its writes.
    private func goThroughPageCache() throws(HushError) {
        guard direct else { return }
        let flags = fcntl(handle.fileDescriptor, F_GETFL)
        guard flags >= 0, fcntl(handle.fileDescriptor, F_SETFL, flags & ~Self.directFlag) == 0 else { throw failure(errno) }
        direct = false
    }

    /// Writes the buffer's first `count` bytes and moves what follows them to its front.
    private func flush(_ count: Int) throws(HushError) {
        var done = 0
        while done < count {
            let written = write(handle.fileDescriptor, buffer.baseAddress! + done, count - done)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EINVAL && direct { try goThroughPageCache(); continue }
                throw failure(errno)
            }
            done += written
        }
        let left = filled - count
        if left > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + count, byteCount: left) }
        filled = left
    }

    private func failure(_ code: Int32) -> HushError {
        HushError(.storage, reason: "could not write \(path): \(String(cString: strerror(code)))")
    }
}
