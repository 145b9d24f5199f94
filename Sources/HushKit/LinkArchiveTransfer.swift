import Foundation
import HushCrypto
import HushRelayAPI
import HushRelayClient

/// The history archive of a link through the relay's blob store
/// (docs/PROTOCOL.md §20.6 step 7), in parts: each part is a blob of its
/// own, uploaded in resumable pieces, downloaded with `Range` from the last
/// byte held after an interruption, checked against the length and SHA-256
/// its `archive part` message gives, and deleted by the existing device as
/// soon as the new device says it has it. So the relay holds at most
/// `window` parts of a link at once, whatever the history's size, and the
/// new device downloads one part while the next goes up.
enum LinkArchiveTransfer {
    /// Bytes of one part (the last may be shorter): `window` of them, and
    /// one being uploaded, fit an identity's default blob quota (256 MiB).
    static let partBytes: Int64 = 64 << 20
    /// Parts uploaded and not yet confirmed by the new device, at most.
    static let window = 2
    /// The most parts of one archive: the channel numbers one byte per
    /// message (§20.6), and a link spends two before the parts and one after.
    static let maxParts = 250
    /// The most bytes of one upload request (as attachments send them).
    static let segmentBytes: Int64 = 8 << 20
    /// Failures in a row, without a byte of progress, before a transfer gives up.
    static let attempts = 5
    static let retryPause: Duration = .milliseconds(300)

    /// How an archive of `length` bytes is cut: part `i` is bytes
    /// `i * partBytes ..< min((i + 1) * partBytes, length)`.
    struct Plan {
        let length: Int64
        let partBytes: Int64

        init(length: Int64, partBytes: Int64 = LinkArchiveTransfer.partBytes) throws {
            guard length > 0, partBytes > 0 else { throw LinkArchiveTransfer.damaged("it is empty") }
            guard (length + partBytes - 1) / partBytes <= Int64(LinkArchiveTransfer.maxParts) else {
                throw HushError(.other, reason: "the history (\(length >> 20) MiB) is larger than a link carries (\(Int64(LinkArchiveTransfer.maxParts) * partBytes >> 20) MiB)",
                                suggestion: "move it with `hush backup create` and `hush backup restore` instead")
            }
            self.length = length
            self.partBytes = partBytes
        }

        var count: Int { Int((length + partBytes - 1) / partBytes) }

        func range(_ index: Int) -> Range<Int64> {
            Int64(index) * partBytes ..< min(Int64(index + 1) * partBytes, length)
        }
    }

    /// Uploads bytes `range` of the file at `path` as a blob of its own;
    /// returns its id and the SHA-256 of those bytes.
    static func uploadPart(_ path: String, range: Range<Int64>, with client: RelayClient) async throws -> (blobID: String, sha256: [UInt8]) {
        let digest = try sha256(of: path, range: range)
        let length = Int64(range.count)
        let started = try await startUpload(length: length, with: client)
        var received = Int64(started.received)
        var failures = 0
        while true {
            do {
                let (blob, status) = try await client.continueBlobUpload(id: started.uploadID, file: path, from: received,
                                                                         to: received + segmentBytes, length: length,
                                                                         fileStart: range.lowerBound)
                if let blob { return (blob.blobID, digest) }
                if let status { received = Int64(status.received) }
                failures = 0
            } catch {
                failures += 1
                guard failures < attempts, isRetryable(error) else {
                    throw HushError(.relayUnavailable, reason: "the history could not be uploaded to the relay", suggestion: String(describing: error))
                }
                try await Task.sleep(for: retryPause)
                if let status = try? await client.blobUploadStatus(id: started.uploadID) { received = Int64(status.received) }
            }
        }
    }

    /// The longest `Retry-After` a link waits out when the relay limits how
    /// often it starts uploads (an identity's burst of 20, then one every 3 s
    /// by default: a history of more than 20 parts meets it).
    static let longestRateLimitWait = 60

    /// Starts the upload of one part, waiting when the relay answers 429
    /// with a short `Retry-After`; a long one (the address's daily byte
    /// budget) ends the link with what the relay said.
    private static func startUpload(length: Int64, with client: RelayClient) async throws -> BlobUploadStatus {
        var waits = 0
        while true {
            let refusal: RelayClientError
            do { return try await client.startBlobUpload(length: length) } catch { refusal = error }
            guard case let .http(status, _, message, retryAfter) = refusal, status == 429 else {
                throw HushError(.relayUnavailable, reason: "the relay could not be used during the link", suggestion: refusal.description)
            }
            let seconds = retryAfter ?? 1
            guard seconds <= longestRateLimitWait, waits < 2 * maxParts else {
                throw HushError(.relayUnavailable, reason: "the relay limits the uploads from this network address (\(message)), and asks to wait \(seconds) s",
                                suggestion: "link again later, or move the history with `hush backup create` and `hush backup restore`")
            }
            waits += 1
            try await Task.sleep(for: .seconds(seconds))
        }
    }

    /// Downloads blob `id`, `length` bytes, to the end of `file` (at
    /// `offset`, where the parts before it end), resuming after an
    /// interruption from the bytes already written, then checks it against
    /// `expected`. `interrupt` is for tests: it may throw to cut a transfer
    /// short (it hears the bytes of this part received so far).
    static func downloadPart(_ id: String, length: UInt64, sha256 expected: [UInt8], into file: FileHandle, at offset: UInt64,
                             with client: RelayClient, interrupt: ((Int64) throws -> Void)? = nil) async throws {
        guard length > 0, length <= UInt64(partBytes) else { throw damaged("a part announced as \(length) bytes") }
        var hasher = SHA256.Hasher()
        var received: Int64 = 0
        var failures = 0
        do { try file.seek(toOffset: offset) } catch {
            throw HushError(.storage, reason: "could not write the history where it is being downloaded", suggestion: "check the disk")
        }
        while received < Int64(length) {
            let before = received
            do {
                try await client.downloadBlob(id: id, from: received, maxBytes: Int64(length)) { bytes in
                    try interrupt?(received)
                    do { try file.write(contentsOf: bytes) } catch { throw LocalWriteFailure(underlying: error) }
                    hasher.update(bytes)
                    received += Int64(bytes.count)
                }
            } catch let failure as LocalWriteFailure {
                throw HushError(.storage, reason: "could not write the history where it is being downloaded (\(failure.underlying.localizedDescription))",
                                suggestion: "check that the disk has room for it")
            } catch {
                failures = received > before ? 1 : failures + 1
                guard failures < attempts, isRetryable(error) else {
                    throw HushError(.relayUnavailable, reason: "the history could not be downloaded from the relay (\(received) of \(length) bytes of a part arrived)",
                                    suggestion: String(describing: error))
                }
                try await Task.sleep(for: retryPause)
            }
        }
        guard received == Int64(length) else { throw damaged("a part is \(received) bytes, not the \(length) announced") }
        guard ConstantTime.equals(hasher.finalize(), expected) else { throw damaged("a part's SHA-256 is not the one announced") }
    }

    /// Transport failures and the relay's 5xx and 429 pass; a refusal (404: gone or expired) does not.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? RelayClientError else { return error is LinkTransferInterruption }
        switch error {
        case .transport: return true
        case let .http(status, _, _, _): return status >= 500 || status == 429
        default: return false
        }
    }

    static func sha256(of path: String, range: Range<Int64>) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw HushError(.storage, reason: "could not read \(path)") }
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(range.lowerBound))
        var hasher = SHA256.Hasher()
        var left = range.count
        while left > 0, let chunk = try handle.read(upToCount: min(left, 1 << 20)), !chunk.isEmpty {
            chunk.withUnsafeBytes { hasher.update($0) }
            left -= chunk.count
        }
        guard left == 0 else { throw HushError(.storage, reason: "\(path) ended before the history did") }
        return hasher.finalize()
    }

    static func damaged(_ what: String) -> HushError {
        HushError(.damagedFile, reason: "the history archive that arrived is not the one sent: \(what); nothing was written",
                  suggestion: "start again with a new code")
    }
}

/// A transfer cut short on purpose (tests): retried as a dropped connection is.
struct LinkTransferInterruption: Error {}

/// Writing a downloaded piece failed: our disk, not the relay; never retried.
private struct LocalWriteFailure: Error {
    let underlying: any Error
}
