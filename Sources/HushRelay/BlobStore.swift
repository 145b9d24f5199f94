import Foundation
import Glibc
import HushRelayAPI
import NIOCore

/// Encrypted attachment files under the data directory, one per blob id.
/// Uploads stream to a temporary file and are renamed into place only when
/// complete and within the size limit, so a reader never sees a partial blob.
public struct BlobStore: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// 64 lower-case hex digits; anything else is refused before touching the disk.
    public static func isValidID(_ id: String) -> Bool { BlobIdentifier.isWellFormed(id) }

    func path(for id: String) -> String { directory + "/" + id }

    /// Bytes between two write-behind requests (`startWriteback`).
    static let writebackBytes = 8 << 20

    /// Asks the kernel to start writing `count` bytes at `offset` of
    /// `descriptor` to the disk now, without waiting (sync_file_range(2),
    /// SYNC_FILE_RANGE_WRITE): the fsync that must precede storing the blob
    /// then finds little left to write, instead of all of it after the last
    /// byte arrived. Durability still rests on that fsync alone.
    static func startWriteback(_ descriptor: Int32, offset: Int, count: Int) {
        _ = syncFileRange?(descriptor, Int64(offset), Int64(count), 2 /* SYNC_FILE_RANGE_WRITE */)
    }

    /// Writes every readable byte of `buffer` to `descriptor` (write(2) may
    /// take less than asked); a failure names `what` was being written.
    static func writeAll(_ buffer: ByteBuffer, to descriptor: Int32, what: String) throws {
        try buffer.withUnsafeReadableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw fileFailure("cannot write \(what)") }
                offset += written
            }
        }
    }

    /// A blob file the system refused (`errno` says why): a full, over-quota,
    /// read-only or failing disk is the relay's state, answered 503 with
    /// Retry-After as a full database disk is (`BlobDiskFailure`); anything
    /// else is an internal failure. A walkthrough's upload on a full disk got 500.
    static func fileFailure(_ what: String, _ code: Int32 = errno) -> any Error {
        let detail = "\(what): \(String(cString: strerror(code)))"
        switch code {
        case ENOSPC, EDQUOT, EIO, EFBIG, EROFS: return BlobDiskFailure(description: detail)
        default: return RelayError.internalFailure(detail)
        }
    }

    /// Writes `body` to the blob `id`; throws `.tooLarge` past `maxBytes`.
    /// Returns the size written.
    public func write<Body: AsyncSequence>(id: String, body: Body, maxBytes: Int) async throws -> Int where Body.Element == ByteBuffer {
        let temporary = directory + "/.upload-" + id
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.fileFailure("cannot create a blob file") }
        var size = 0, flushed = 0
        do {
            for try await buffer in body {
                size += buffer.readableBytes
                guard size <= maxBytes else { throw RelayError.tooLarge("the blob") }
                try Self.writeAll(buffer, to: descriptor, what: "a blob file")
                if size - flushed >= Self.writebackBytes {
                    Self.startWriteback(descriptor, offset: flushed, count: size - flushed)
                    flushed = size
                }
            }
            guard fsync(descriptor) == 0 else { throw Self.fileFailure("cannot sync a blob file") }
            close(descriptor)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path(for: id)) == 0 else {
            unlink(temporary)
            throw RelayError.internalFailure("cannot store a blob file")
        }
        return size
    }

    /// The blob's bytes from `offset` on, in chunks of at most `BlobReader.chunkBytes`, or nil when the file is gone.
    public func read(id: String, from offset: Int = 0) -> BlobReader? {
        let descriptor = open(path(for: id), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        if offset > 0 && lseek(descriptor, off_t(offset), SEEK_SET) != off_t(offset) {
            close(descriptor)
            return nil
        }
        return BlobReader(descriptor: descriptor)
    }

    public func delete(id: String) {
        unlink(path(for: id))
    }
}

/// Reads one open blob file chunk by chunk; closes it at the end.
public final class BlobReader: @unchecked Sendable {
    private var descriptor: Int32

    init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Bytes per chunk: a quarter of a MiB held per download in progress, a
    /// quarter as many reads and response-body writes as 64 KiB took.
    static let chunkBytes = 256 << 10

    /// The next chunk, or nil at the end of the file.
    public func next() throws -> ByteBuffer? {
        guard descriptor >= 0 else { return nil }
        var buffer = ByteBufferAllocator().buffer(capacity: Self.chunkBytes)
        let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.chunkBytes) { bytes in
            max(0, Glibc.read(descriptor, bytes.baseAddress, Self.chunkBytes))
        }
        if count == 0 {
            close(descriptor)
            descriptor = -1
            return nil
        }
        return buffer
    }
}

/// sync_file_range(2), which Swift's Glibc module does not declare: looked up
/// once in the C library (nil where it is missing, and write-behind is then skipped).
private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
private let syncFileRange: SyncFileRange? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range")
    .map { unsafeBitCast($0, to: SyncFileRange.self) }

/// A blob file the disk could not take (full, over quota, read-only, failing):
/// `ErrorMappingMiddleware` logs it and answers 503 `unavailable` with Retry-After.
public struct BlobDiskFailure: Error, CustomStringConvertible {
    public let description: String
}
