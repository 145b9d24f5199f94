#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto

/// A decrypted attachment on its way to the user's `--out` path. No
/// decrypted byte ever sits under a name until the whole blob verified:
/// the plaintext goes into an unnamed file (O_TMPFILE) in PATH's folder,
/// which the kernel frees if the process dies, and `commit` links it in as
/// PATH. An existing destination is refused when the export starts (before
/// anything downloads), and again atomically at `commit`: it is never
/// replaced.
///
/// Where the file system cannot make unnamed files (or /proc is missing, so
/// one cannot be linked in), the plaintext goes to `.hush-partial-PID-…`
/// beside PATH instead, removed on success and failure; one left by a killed
/// process (its PID gone), or by an older hush, is removed by the next export
/// into that folder.
final class ExportFile {
    let destination: String
    private let file: PosixFile
    /// The fallback's name; nil for an unnamed file.
    private let temporary: String?

    static let partialPrefix = ".hush-partial-"

    init(destination: String, using random: any RandomSource) throws(AttachmentFileError) {
        guard access(destination, F_OK) != 0 else {
            throw AttachmentFileError(exactly: "\(destination) exists and is never replaced: choose another --out, or move it away first")
        }
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { String(destination[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        Self.removeAbandonedPartials(in: folder)
        if let unnamed = try PosixFile.createUnnamed(in: folder) {
            file = unnamed
            temporary = nil
        } else {
            let path = (folder == "/" ? "" : folder) + "/\(Self.partialPrefix)\(getpid())-\(Hex.encode(random.bytes(8)))"
            file = try PosixFile.create(path)
            temporary = path
        }
        // Synced whole before it takes its name: written to the disk as it goes, not all in that sync.
        file.writesBehind = true
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
            try file.sync()
            if temporary == nil {
                try file.link(as: destination)
            } else if let temporary, link(temporary, destination) != 0 {
                // link() refuses an existing name atomically, where rename() would replace it.
                throw AttachmentFileError("cannot create", path: destination, errno: errno)
            }
            file.close()
            if let temporary { unlink(temporary) }
        } catch {
            abandon()
            throw error
        }
    }

    func abandon() {
        file.close()
        if let temporary { unlink(temporary) }
    }

    /// Removes `.hush-partial-…` files in `folder` whose writer is gone: a
    /// fallback export killed mid-way (its PID no longer runs), or one an
    /// older hush left (no PID in its name). They hold decrypted bytes.
    static func removeAbandonedPartials(in folder: String) {
        guard let handle = opendir(folder) else { return }
        var doomed: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name.hasPrefix(partialPrefix) else { continue }
            let rest = name.dropFirst(partialPrefix.count)
            if let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]), pid > 0, kill(pid, 0) == 0 || errno != ESRCH {
                continue  // a running export's (ours, or another process's)
            }
            doomed.append(name)
        }
        closedir(handle)
        for name in doomed { unlink((folder == "/" ? "" : folder) + "/" + name) }
    }
}

/// Writing the decrypted file failed (the `--out` disk is full, say): the
/// download itself is fine and what it checked stays for the next fetch.
struct ExportFailure: Error, CustomStringConvertible {
    let underlying: AttachmentFileError
    var description: String { "cannot save the attachment: \(underlying)" }
}
