import Glibc
import HushCrypto

/// A decrypted attachment on its way to the user's `--out` path: written
/// under a temporary name beside it, and only `commit` (after the whole blob
/// verified) gives it the final name, so no partial or unverified file ever
/// appears there. An existing destination is refused when the export starts
/// (before anything downloads), and again atomically at `commit`: it is never
/// replaced.
final class ExportFile {
    let destination: String
    private let file: PosixFile
    private let temporary: String

    init(destination: String, using random: any RandomSource) throws(AttachmentFileError) {
        guard access(destination, F_OK) != 0 else {
            throw AttachmentFileError(exactly: "\(destination) exists and is never replaced: choose another --out, or move it away first")
        }
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { String(destination[..<$0]) } ?? "."
        temporary = (folder.isEmpty ? "" : folder) + "/.hush-partial-\(Hex.encode(random.bytes(8)))"
        file = try PosixFile.create(temporary)
        self.destination = destination
    }

    /// Writes decrypted bytes; a failure is an `ExportFailure`, told apart
    /// from the download's own (which keeps what it verified either way).
    func write(_ plaintext: [UInt8]) throws(ExportFailure) {
        do { try file.write(plaintext) } catch { throw ExportFailure(underlying: error) }
    }

    func write(_ plaintext: UnsafeRawBufferPointer) throws(ExportFailure) {
        do { try file.write(plaintext) } catch { throw ExportFailure(underlying: error) }
    }

    /// Drops what was written (a stored download that failed its re-check starts again).
    func restart() throws(AttachmentFileError) { try file.truncate() }

    /// The verified plaintext becomes `destination`.
    func commit() throws(AttachmentFileError) {
        do throws(AttachmentFileError) {
            try file.syncAndClose()
            // link() refuses an existing name atomically, where rename() would replace it.
            guard link(temporary, destination) == 0 else {
                throw AttachmentFileError("cannot create", path: destination, errno: errno)
            }
            unlink(temporary)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    func abandon() { unlink(temporary) }
}

/// Writing the decrypted file failed (the `--out` disk is full, say): the
/// download itself is fine and what it checked stays for the next fetch.
struct ExportFailure: Error, CustomStringConvertible {
    let underlying: AttachmentFileError
    var description: String { "cannot save the attachment: \(underlying)" }
}
