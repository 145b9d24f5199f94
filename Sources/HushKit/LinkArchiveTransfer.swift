import Foundation
import HushCrypto
import HushRelayAPI
import HushRelayClient

/// The history archive of a link through the relay's blob store
/// (docs/PROTOCOL.md §20.6 step 7): uploaded in resumable parts, downloaded
/// with `Range` from the last byte held after an interruption, and checked
/// against the length and SHA-256 the `archive` message gives before
/// anything is restored from it.
enum LinkArchiveTransfer {
    /// The most bytes of one upload request (as attachments send them).
    static let segmentBytes: Int64 = 8 << 20
    /// Failures in a row, without a byte of progress, before a transfer gives up.
    static let attempts = 5
    static let retryPause: Duration = .milliseconds(300)

    /// Uploads the file at `path`; returns its blob id and SHA-256.
    static func upload(_ path: String, length: Int64, with client: RelayClient) async throws -> (blobID: String, sha256: [UInt8]) {
        let digest = try sha256(of: path)
        let started = try await LinkMailbox.relayCall { try await client.startBlobUpload(length: length) }
        var received = Int64(started.received)
        var failures = 0
        while true {
            do {
                let (blob, status) = try await client.continueBlobUpload(id: started.uploadID, file: path, from: received,
                                                                         to: received + segmentBytes, length: length)
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

    /// Downloads blob `id` into a new file at `path`, resuming after an
    /// interruption from the bytes already written, then checks it.
    /// `interrupt` is for tests: it may throw to cut a transfer short.
    static func download(_ id: String, length: UInt64, sha256 expected: [UInt8], to path: String, with client: RelayClient,
                         interrupt: ((Int64) throws -> Void)? = nil) async throws {
        guard length > 0, length <= UInt64(Int64.max) else { throw damaged("its announced length is \(length) bytes") }
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let file = FileHandle(forWritingAtPath: path) else {
            throw HushError(.storage, reason: "could not create \(path) for the history", suggestion: "check that the folder is writable")
        }
        defer { try? file.close() }
        var received: Int64 = 0
        var failures = 0
        while received < Int64(length) {
            let before = received
            do {
                try await client.downloadBlob(id: id, from: received, maxBytes: Int64(length)) { bytes in
                    try interrupt?(received)
                    file.write(Data(bytes))
                    received += Int64(bytes.count)
                }
            } catch {
                failures = received > before ? 1 : failures + 1
                guard failures < attempts, isRetryable(error) else {
                    throw HushError(.relayUnavailable, reason: "the history could not be downloaded from the relay (\(received) of \(length) bytes arrived)",
                                    suggestion: String(describing: error))
                }
                try await Task.sleep(for: retryPause)
            }
        }
        try file.synchronize()
        guard received == Int64(length) else { throw damaged("it is \(received) bytes, not the \(length) announced") }
        guard ConstantTime.equals(try sha256(of: path), expected) else { throw damaged("its SHA-256 is not the one announced") }
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

    static func sha256(of path: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw HushError(.storage, reason: "could not read \(path)") }
        defer { try? handle.close() }
        var hasher = SHA256.Hasher()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update([UInt8](chunk)) }
        return hasher.finalize()
    }

    static func damaged(_ what: String) -> HushError {
        HushError(.damagedFile, reason: "the history archive that arrived is not the one sent: \(what); nothing was written",
                  suggestion: "start again with a new code")
    }
}

/// A transfer cut short on purpose (tests): retried as a dropped connection is.
struct LinkTransferInterruption: Error {}
