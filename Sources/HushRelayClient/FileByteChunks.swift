#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushRelayAPI
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
    /// For a file still being written: how far it is, and its latest bytes
    /// from memory (nil: the file is whole).
    var growing: GrowingUploadFile?
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
        private let growing: GrowingUploadFile?

        init(path: String, offset: Int64, end: Int64, growing: GrowingUploadFile?,
             progress: @escaping @Sendable (Int64) -> Void) {
            self.path = path
            self.growing = growing
            self.progress = progress
            sent = offset
            self.end = end
        }

        deinit { if descriptor >= 0 { close(descriptor) } }

        func next() async throws -> ByteBuffer? {
            guard sent < end else { return nil }
            // A file still being written is read only as far as it is written.
            var limit = end
            if let growing { limit = Swift.min(end, try await growing.available(sent)) }
            let want = Int(Swift.min(FileByteChunks.pieceBytes, limit - sent))
            guard want > 0 else { return nil }
            var buffer = ByteBufferAllocator().buffer(capacity: want)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { bytes in
                let target = UnsafeMutableRawBufferPointer(rebasing: bytes[..<want])
                // Bytes just written, still held in memory by their writer: not read back from the disk.
                if let held = growing?.copyHeld(sent, target), held > 0 { return held }
                return try readFile(into: target, at: sent)
            }
            guard count > 0 else { return nil }
            sent += Int64(count)
            progress(sent)
            return buffer
        }

        /// Reads from the file at `offset` (opened at the first read).
        private func readFile(into target: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
            if descriptor < 0 {
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw FileReadError(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
            }
            while true {
                let count = pread(descriptor, target.baseAddress, target.count, off_t(offset))
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw FileReadError(description: "cannot read \(path): \(String(cString: strerror(errno)))") }
                return count
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(path: path, offset: offset, end: end, growing: growing, progress: progress) }
}
