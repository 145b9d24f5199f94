import Foundation
import HushMessenger
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A new file that a restore writes past the page cache: its descriptor
/// (owned here, closed by `handle`) and HushMessenger's `DirectWriter` over
/// it, whose errors become the restore's.
final class DirectFileWriter {
    let handle: FileHandle
    let path: String
    private let writer: DirectWriter
    static var alignment: Int { DirectWriter.alignment }
    static var bufferLength: Int { DirectWriter.bufferLength }

    /// Creates `path` (refused when it exists) with mode 0600.
    init(creating path: String) throws(HushError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw HushError(.storage, reason: "could not create \(path): \(String(cString: strerror(errno)))")
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.path = path
        writer = DirectWriter(descriptor: descriptor, path: path)
    }

    /// Appends `bytes` to the file.
    func append(_ bytes: UnsafeRawBufferPointer) throws(HushError) {
        do { try writer.write(bytes) } catch { throw Self.failure(error) }
    }

    /// Writes what is still in the buffer; the file is complete after it.
    func finish() throws(HushError) {
        do { try writer.finish() } catch { throw Self.failure(error) }
    }

    private static func failure(_ error: AttachmentFileError) -> HushError {
        HushError(.storage, reason: error.description)
    }
}
