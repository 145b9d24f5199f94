#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore

/// A file's bytes as the body of an upload, read `pieceBytes` at a time when
/// the HTTP client asks for them, so memory stays flat whatever the file's size.
/// `progress` hears the count of bytes handed on so far.
struct FileByteChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String
    /// Where in the file the body starts (a resumed upload sends only the rest).
    var offset: Int64 = 0
    /// Where the body ends (exclusive): one segment of the file.
    var end: Int64 = .max
    let progress: @Sendable (Int64) -> Void

    /// Bytes per read and per body part: 1 MiB held, a sixteenth as many
    /// trips through the HTTP client's body stream as 64 KiB took.
    static let pieceBytes: Int64 = 1 << 20

    struct FileReadError: Error, CustomStringConvertible {
        let description: String
    }

    final class AsyncIterator: AsyncIteratorProtocol {
        private var descriptor: Int32 = -1
        private let path: String
        private let progress: @Sendable (Int64) -> Void
        /// The file position reached, reported to `progress`.
        private var sent: Int64
        private let end: Int64

        init(path: String, offset: Int64, end: Int64, progress: @escaping @Sendable (Int64) -> Void) {
            self.path = path
            self.progress = progress
            sent = offset
            self.end = end
        }

        deinit { if descriptor >= 0 { close(descriptor) } }

        func next() async throws -> ByteBuffer? {
            if descriptor < 0 {
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw FileReadError(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
                guard lseek(descriptor, off_t(sent), SEEK_SET) == off_t(sent) else {
                    throw FileReadError(description: "cannot seek in \(path): \(String(cString: strerror(errno)))")
                }
            }
            let want = Int(Swift.min(FileByteChunks.pieceBytes, end - sent))
            guard want > 0 else { return nil }
            var buffer = ByteBufferAllocator().buffer(capacity: want)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { bytes in
                let count = read(descriptor, bytes.baseAddress, want)
                guard count >= 0 else { throw FileReadError(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
                return count
            }
            guard count > 0 else { return nil }
            sent += Int64(count)
            progress(sent)
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(path: path, offset: offset, end: end, progress: progress) }
}
