#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto
import HushProtocol

/// Attachment blobs under the data directory (`<home>/attachments`, 0700):
/// `<id>.blob` is a whole, verified encrypted blob (an outgoing one, kept
/// for its upload and then as the sender's own copy, or an incoming one
/// downloaded and checked); `<id>.part` a
/// download in progress. Files are only ever encrypted here: the plaintext
/// exists only where the user exports it. Every pass holds one chunk at a time.
struct AttachmentFiles {
    let directory: String

    func blobPath(_ id: Int64) -> String { "\(directory)/\(id).blob" }
    func partPath(_ id: Int64) -> String { "\(directory)/\(id).part" }

    func ensureDirectory() throws(AttachmentFileError) {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw AttachmentFileError("cannot create", path: directory, errno: errno) }
    }

    /// A file to send, opened, with its size then: the upload of its blob
    /// starts (its length follows from the size) while it is being sealed.
    struct Source: @unchecked Sendable {
        let path: String
        let file: PosixFile
        let size: Int64
    }

    func openSource(_ source: String) throws -> Source {
        let input = try PosixFile.openForReading(source)
        return Source(path: source, file: input, size: try input.size)
    }

    /// Where a file being sealed is written: named after this process, so
    /// that another process's sweep leaves it alone while we run.
    func sealingPath(using random: any RandomSource) -> String {
        "\(directory)/\(Self.sealingPrefix)\(getpid())-\(Hex.encode(random.bytes(8)))"
    }

    /// Seals `source` with `key` into a new file at `path` (`sealingPath`)
    /// and returns the blob's digest; on failure the file is removed. The
    /// file is written past the page cache (`DirectWriter`), and each piece
    /// written is handed to `wrote` as well, for the upload that follows the
    /// sealing (`SealedBlobFeed`). The file is not synced: `sync` it before a
    /// row names it, unless the upload completed and it is about to go.
    func seal(_ source: Source, into path: String, key: SecureBytes,
              progress: (Int64, Int64) -> Void = { _, _ in }, wrote: (UnsafeRawBufferPointer) -> Void = { _ in }) throws -> [UInt8] {
        try ensureDirectory()
        let size = source.size, input = source.file
        let sealer = try AttachmentSealer(key: key, plaintextSize: UInt64(size))
        let file = try PosixFile.create(path)
        let output = DirectWriter(file)
        do {
            var index: UInt64 = 0
            // One plaintext buffer for every chunk; each is sealed into the sealer's and written from there.
            var chunk = [UInt8](repeating: 0, count: AttachmentBlob.chunkSize)
            defer { _ = chunk.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
            repeat {
                let expected = AttachmentBlob.plaintextLength(ofChunk: index, plaintextSize: UInt64(size))
                try chunk.withUnsafeMutableBytes { buffer in
                    let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[..<expected])
                    guard try input.read(into: piece) == expected else {
                        throw AttachmentFileError("the file shrank while it was being encrypted:", path: source.path)
                    }
                    try sealer.seal(UnsafeRawBufferPointer(piece)) { sealed in
                        try output.write(sealed)
                        wrote(sealed)
                    }
                }
                index += 1
                progress(min(Int64(index) * Int64(AttachmentBlob.chunkSize), size), size)
            } while !sealer.isComplete
            guard try input.read(upTo: 1).isEmpty else { throw AttachmentFileError("the file grew while it was being encrypted:", path: source.path) }
            try output.writeZeros(sealer.paddingLength)
            try output.finish()
            file.close()
            Self.zeros.withUnsafeBytes { zeros in
                var remaining = sealer.paddingLength
                while remaining > 0 {
                    let step = Int(min(remaining, UInt64(zeros.count)))
                    wrote(UnsafeRawBufferPointer(rebasing: zeros[..<step]))
                    remaining -= UInt64(step)
                }
            }
            return try sealer.digest()
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Padding, handed on a piece at a time.
    private static let zeros = [UInt8](repeating: 0, count: 64 << 10)

    /// Makes the sealed file at `path` durable.
    func sync(_ path: String) throws {
        let file = try PosixFile.openForAppending(path)
        try file.syncAndClose()
    }

    /// Gives the sealed file at `path` its attachment's name as well (a hard
    /// link: an upload reading it under its first name goes on).
    func keep(_ path: String, as id: Int64) throws(AttachmentFileError) {
        guard link(path, blobPath(id)) == 0 else { throw AttachmentFileError("cannot link", path: path, errno: errno) }
    }

    func remove(_ id: Int64) {
        unlink(blobPath(id))
        unlink(partPath(id))
    }

    func hasBlob(_ id: Int64) -> Bool { access(blobPath(id), F_OK) == 0 }

    /// Bytes a download in progress (or cut short) holds so far.
    func partSize(_ id: Int64) -> Int64 {
        var info = stat()
        return stat(partPath(id), &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Removes blob files whose attachment row is not in `ids` (its message,
    /// conversation or contact was deleted) and sealing files whose process
    /// (`isAlive`) is gone. `ids` must be every row, read under the write lock.
    func sweep(keeping ids: Set<Int64>, isAlive: (Int32) -> Bool) {
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        var doomed: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.hasPrefix(Self.sealingPrefix) {
                if Self.sealingIsAbandoned(name, idleSeconds: idleSeconds("\(directory)/\(name)"), isAlive: isAlive) { doomed.append(name) }
                continue
            }
            guard let dot = name.firstIndex(of: "."), let id = Int64(name[..<dot]) else { continue }
            if !ids.contains(id) { doomed.append(name) }
        }
        for name in doomed { unlink("\(directory)/\(name)") }
    }

    static let sealingPrefix = ".sealing-"

    /// Whether a sealing file was left behind. A sealer writes all the time,
    /// so a file written in the last minute is in use whatever its process id
    /// says (a process in another PID namespace looks gone from here); one
    /// untouched for an hour is abandoned even if its number now belongs to
    /// another process (pids are reused: in a container, `hush` is often 1).
    static func sealingIsAbandoned(_ name: String, idleSeconds: Int, isAlive: (Int32) -> Bool) -> Bool {
        if idleSeconds >= 3_600 { return true }
        if idleSeconds < 60 { return false }
        return !(sealingProcess(name).map(isAlive) ?? false)
    }

    /// Seconds since the file was last written (0 when it cannot be read).
    private func idleSeconds(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        #if canImport(Darwin)
        let modified = info.st_mtimespec.tv_sec
        #else
        let modified = info.st_mtim.tv_sec
        #endif
        return max(0, time(nil) - modified)
    }

    /// The process that is sealing into a file named `.sealing-PID-RANDOM`
    /// (nil for the names of older versions, which carried no process id).
    static func sealingProcess(_ name: String) -> Int32? {
        let rest = name.dropFirst(sealingPrefix.count)
        guard let dash = rest.firstIndex(of: "-") else { return nil }
        return Int32(rest[..<dash])
    }

    /// Decrypts the stored blob `id` into `export` and commits it once the
    /// whole blob verified.
    func export(_ id: Int64, key: SecureBytes, size: Int64, digest: [UInt8], to export: ExportFile) throws {
        do {
            let input = try PosixFile.openForReading(blobPath(id))
            let opener = try AttachmentOpener(key: key, plaintextSize: UInt64(size), digest: digest)
            while true {
                let piece = try input.read(upTo: AttachmentBlob.chunkSize + AttachmentBlob.chunkOverhead)
                if piece.isEmpty { break }
                try piece.withUnsafeBytes { try opener.consume($0) { try export.write($0) } }
            }
            try opener.finish()
            try export.commit()
        } catch {
            export.abandon()
            throw error
        }
    }
}

/// Takes a blob as it downloads: checks it chunk by chunk while writing the
/// encrypted bytes to `<id>.part` and, with an `export` (`hush fetch --out`),
/// the plaintext to it, so the file is decrypted once, not downloaded and
/// then decrypted again; `finish` then verifies the whole and renames the
/// part to `<id>.blob` (the caller commits the export). A part file left by
/// an interrupted download is read back through the checks first (into the
/// export too) and the download resumes after its last byte
/// (`resumeOffset`); one that fails them is discarded and the download
/// starts over.
final class VerifyingBlobSink: BlobSink, @unchecked Sendable {
    private let opener: AttachmentOpener
    private let output: PosixFile
    /// Writes a part started afresh past the page cache (`DirectWriter`);
    /// nil for a part resumed (appended to from wherever it ended).
    private let direct: DirectWriter?
    private let files: AttachmentFiles
    private let id: Int64
    private let export: ExportFile?
    private let progress: @Sendable (Int64) -> Void
    let resumeOffset: Int64

    init(files: AttachmentFiles, id: Int64, key: SecureBytes, size: Int64, digest: [UInt8], export: ExportFile? = nil,
         progress: @escaping @Sendable (Int64) -> Void) throws {
        try files.ensureDirectory()
        let path = files.partPath(id)
        var opener = try AttachmentOpener(key: key, plaintextSize: UInt64(size), digest: digest)
        if let existing = try? PosixFile.openForReading(path) {
            while true {
                let plaintext: [UInt8]
                do {
                    let piece = try existing.read(upTo: AttachmentBlob.chunkSize + AttachmentBlob.chunkOverhead)
                    if piece.isEmpty { break }
                    plaintext = try opener.consume(piece)
                } catch {
                    // Unreadable or failing the checks: start over. (A failure
                    // to write the export, below, is the caller's to report.)
                    unlink(path)
                    try export?.restart()
                    opener = try AttachmentOpener(key: key, plaintextSize: UInt64(size), digest: digest)
                    break
                }
                try export?.write(plaintext)
            }
        }
        if opener.bytesReceived > 0 {
            output = try PosixFile.openForAppending(path)
            direct = nil
        } else {
            unlink(path)
            output = try PosixFile.create(path)
            direct = DirectWriter(output)
        }
        resumeOffset = Int64(opener.bytesReceived)
        self.opener = opener
        self.files = files
        self.id = id
        self.export = export
        self.progress = progress
    }

    var blobLength: Int64 { Int64(opener.blobLength) }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write(contentsOf: $0) }
    }

    /// Checks the bytes and decrypts them straight into the export (no array
    /// per piece or chunk), then keeps them in the part file.
    func write(contentsOf bytes: UnsafeRawBufferPointer) throws {
        if let export {
            try opener.consume(bytes) { try export.write($0) }
        } else {
            try opener.consume(bytes) { _ in }
        }
        if let direct { try direct.write(bytes) } else { try output.write(bytes) }
        progress(Int64(opener.bytesReceived))
    }

    /// A download cut off: writes what is still buffered, so that the next
    /// fetch resumes after every byte that arrived and was checked.
    func keep() {
        try? direct?.finish()
    }

    func finish() throws {
        try opener.finish()
        try direct?.finish()
        try output.syncAndClose()
        guard rename(files.partPath(id), files.blobPath(id)) == 0 else {
            throw AttachmentFileError("cannot rename", path: files.partPath(id), errno: errno)
        }
    }

    func abandon() { unlink(files.partPath(id)) }
}

extension AttachmentFiles {
    /// The files of a client that keeps them, or why it cannot.
    static func required(_ files: AttachmentFiles?) throws -> AttachmentFiles {
        guard let files else { throw MessengerError.attachmentUnavailable("this client keeps no attachment files (no data directory)") }
        return files
    }
}
