import Foundation
import Glibc
import HushCrypto
import HushRelayAPI
import NIOCore

/// Resumable uploads on disk, beside the blobs: `.resumable-<id>` holds the
/// bytes received so far and `.resumable-<id>.owner` the uploader's identity
/// (hex) and the declared length. On disk rather than in the storage driver so
/// that an upload survives a restart of the relay (and of the client) and any
/// instance sharing the blob directory can continue it; the blob is recorded
/// in the index, with its uploader and against the quota, only when complete.
extension BlobStore {
    struct Resumable {
        let uploader: [UInt8]
        let length: Int
        let received: Int
    }

    func resumablePath(_ id: String) -> String { directory + "/.resumable-" + id }
    private func ownerPath(_ id: String) -> String { resumablePath(id) + ".owner" }

    /// How many uploads one identity may have open at once (RELAY-API):
    /// with the declared lengths counted against its quota, it bounds the
    /// disk an identity can claim with uploads it never finishes.
    public static let maxOpenUploadsPerIdentity = 4

    /// Starts the upload `id` if `uploader` has fewer than
    /// `maxOpenUploadsPerIdentity` open and `check` (the budgets,
    /// `BlobBudget`), given every open upload, does not throw. The checks and
    /// the creation hold an exclusive lock on the directory's `.uploads.lock`,
    /// so concurrent starts (from this relay or another sharing the
    /// directory) cannot both squeeze in.
    func createResumable(id: String, uploader: [UInt8], length: Int, check: ([RelayInventory.UploadInProgress]) throws -> Void) throws {
        let lock = open(directory + "/.uploads.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw RelayError.internalFailure("cannot start an upload: \(String(cString: strerror(errno)))") }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw RelayError.internalFailure("cannot start an upload: \(String(cString: strerror(errno)))") }
        let open = resumables()
        guard open.filter({ $0.uploader == uploader }).count < Self.maxOpenUploadsPerIdentity else {
            throw RelayError.blobQuotaExceeded("\(Self.maxOpenUploadsPerIdentity) uploads in progress at most: finish one first, "
                                               + "or wait a day for abandoned ones to be removed")
        }
        try check(open)
        // The data file first, then the owner file that makes it an upload:
        // a crash in between leaves a data file without owner, swept like an
        // abandoned upload.
        let bytes = Glibc.open(resumablePath(id), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard bytes >= 0 else { throw BlobStore.fileFailure("cannot start an upload") }
        close(bytes)
        let data = Array((Hex.encode(uploader) + " " + String(length)).utf8)
        let descriptor = Glibc.open(ownerPath(id), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        let written = descriptor >= 0 ? data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, $0.count) } : -1
        let synced = descriptor >= 0 && written == data.count && fsync(descriptor) == 0
        if descriptor >= 0 { close(descriptor) }
        guard synced else {
            let failure = BlobStore.fileFailure("cannot start an upload")
            deleteResumable(id: id)
            throw failure
        }
    }

    /// The upload `id` if it exists.
    func resumable(id: String) -> Resumable? {
        guard let text = try? String(contentsOfFile: ownerPath(id), encoding: .utf8) else { return nil }
        let parts = text.split(separator: " ")
        guard parts.count == 2, let uploader = try? Hex.decode(String(parts[0])), let length = Int(parts[1]) else { return nil }
        var info = stat()
        guard stat(resumablePath(id), &info) == 0 else { return nil }
        return Resumable(uploader: uploader, length: length, received: Int(info.st_size))
    }

    /// Appends `body` at `offset` (which must be where the file ends); stops
    /// with `.tooLarge` past `length`, leaving the file as it was before.
    func append<Body: AsyncSequence>(id: String, at offset: Int, length: Int, body: Body) async throws -> Int where Body.Element == ByteBuffer {
        let path = resumablePath(id)
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw RelayError.notFound("upload") }
        defer { close(descriptor) }
        // One writer at a time: an attempt whose client vanished may still be
        // receiving (until its connection times out) when the client's next
        // attempt arrives; interleaved writes would corrupt the blob.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            throw RelayError.conflict("an earlier attempt at this upload is still being received: ask where it stands again shortly")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, Int(info.st_size) == offset else {
            throw RelayError.conflict("the upload holds \(Int(info.st_size)) bytes: send \(BlobUploadHeaders.offset): \(Int(info.st_size)) and the bytes from there")
        }
        guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else { throw RelayError.internalFailure("cannot seek in an upload") }
        var size = offset, flushed = offset
        do {
            for try await buffer in body {
                size += buffer.readableBytes
                guard size <= length else { throw RelayError.tooLarge("the upload (longer than its declared length)") }
                try BlobStore.writeAll(buffer, to: descriptor, what: "an upload")
                if size - flushed >= BlobStore.writebackBytes {
                    BlobStore.startWriteback(descriptor, offset: flushed, count: size - flushed)
                    flushed = size
                }
            }
            if size > flushed { BlobStore.startWriteback(descriptor, offset: flushed, count: size - flushed) }
        } catch RelayError.tooLarge(let what) {
            _ = ftruncate(descriptor, off_t(offset))
            throw RelayError.tooLarge(what)
        }
        // A body cut short keeps what arrived: the client resumes after it.
        return size
    }

    /// Makes a complete upload the blob `id`.
    func completeResumable(id: String) throws {
        let descriptor = open(resumablePath(id), O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 { _ = fsync(descriptor); close(descriptor) }
        guard rename(resumablePath(id), path(for: id)) == 0 else { throw RelayError.internalFailure("cannot store a blob file") }
        unlink(ownerPath(id))
    }

    /// Every upload in progress, for the audit.
    func resumables() -> [RelayInventory.UploadInProgress] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { $0.hasPrefix(".resumable-") && !$0.hasSuffix(".owner") }.sorted().compactMap { name in
            let id = String(name.dropFirst(".resumable-".count))
            return resumable(id: id).map { RelayInventory.UploadInProgress(id: id, uploader: $0.uploader, length: $0.length, received: $0.received) }
        }
    }

    func deleteResumable(id: String) {
        unlink(resumablePath(id))
        unlink(ownerPath(id))
    }

    /// Removes uploads untouched for `seconds` (abandoned by their client),
    /// and owner files whose data file is gone (a crash while starting or
    /// finishing an upload) once as old.
    func sweepResumables(olderThan seconds: Int, now: Int64) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(".resumable-") {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0,
                  Int64(info.st_mtim.tv_sec) * 1000 + Int64(seconds) * 1000 < now else { continue }
            if name.hasSuffix(".owner") {
                let id = String(name.dropFirst(".resumable-".count).dropLast(".owner".count))
                if access(resumablePath(id), F_OK) != 0 {
                    unlink(directory + "/" + name)
                    removed += 1
                }
            } else {
                deleteResumable(id: String(name.dropFirst(".resumable-".count)))
                removed += 1
            }
        }
        return removed
    }

    /// Blob files (named by a blob id) older than `seconds` that `isIndexed`
    /// does not know: left by a crash between storing a file and recording
    /// it. The grace period covers a blob being recorded right now.
    func unindexedBlobFiles(olderThan seconds: Int, now: Int64) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { name in
            var info = stat()
            return BlobStore.isValidID(name) && stat(directory + "/" + name, &info) == 0
                && Int64(info.st_mtim.tv_sec) * 1000 + Int64(seconds) * 1000 < now
        }.sorted()
    }
}
