import AsyncHTTPClient
import Foundation
import HushRelayAPI
import NIOCore
import NIOHTTP1

/// Attachment blobs streamed from and to files (docs/RELAY-API.md, blobs):
/// neither direction holds more than a chunk in memory.
extension RelayClient {
    /// How long one blob transfer may take in all (the 30 s of other calls is
    /// far too short for a large file on a slow link).
    static let blobTimeout: TimeAmount = .minutes(60)

    /// Starts a resumable upload of a `length`-byte blob (RELAY-API, `/v1/blobs/uploads`).
    public func startBlobUpload(length: Int64) async throws(RelayClientError) -> BlobUploadStatus {
        let raw = try await send(.POST, RelayPaths.blobUploads, authenticated: true, headers: [(BlobUploadHeaders.length, String(length))])
        return try decode(BlobUploadStatus.self, from: raw)
    }

    /// How many bytes of upload `id` the relay holds.
    public func blobUploadStatus(id: String) async throws(RelayClientError) -> BlobUploadStatus {
        try await call(.GET, RelayPaths.blobUpload(id), authenticated: true, as: BlobUploadStatus.self)
    }

    /// Deletes blob `id`, which this identity uploaded, once whoever it was
    /// for has fetched it: its bytes leave the relay, and the quota they held
    /// is free again. Deleting twice is harmless (the repeat answers 404:
    /// `deleted` is false then).
    @discardableResult
    public func deleteBlob(id: String) async throws(RelayClientError) -> Bool {
        let raw = try await send(.DELETE, RelayPaths.blob(id), authenticated: true, repeatable: true)
        if raw.status == 404 { return false }
        try raw.throwIfError()
        return true
    }

    /// Sends bytes `offset..<end` of the file at `path` (to the end of the
    /// `length`-byte blob by default) as the next part of upload `id`. Returns
    /// the blob once the relay has all `length` bytes, else the upload's status.
    /// With `growing` the file is still being written: each read waits for
    /// bytes past its position, goes no further than they are written, and
    /// takes them from the writer's memory when it still holds them.
    /// `fileStart`: where the blob begins in the file (a blob that is one
    /// part of a larger file); offsets are the blob's.
    public func continueBlobUpload(id: String, file path: String, from offset: Int64, to end: Int64? = nil, length: Int64,
                                   fileStart: Int64 = 0, growing: GrowingUploadFile? = nil,
                                   progress: @escaping @Sendable (Int64) -> Void = { _ in })
        async throws(RelayClientError) -> (blob: BlobUploadResponse?, status: BlobUploadStatus?) {
        let end = min(end ?? length, length)
        var request = HTTPClientRequest(url: baseURL + RelayPaths.blobUpload(id))
        request.method = .PATCH
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "Authorization", value: "Bearer " + (try currentSession().token))
        request.headers.add(name: BlobUploadHeaders.offset, value: String(offset))
        request.body = .stream(FileByteChunks(path: path, offset: fileStart + offset, end: fileStart + end, growing: growing, progress: progress),
                               length: .known(end - offset))
        let raw: RelayRawResponse
        do {
            let response = try await http.execute(request, timeout: Self.blobTimeout)
            let bytes = try await response.body.collect(upTo: 64 << 10)
            raw = RelayRawResponse(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                                   body: Array(bytes.readableBytesView))
        } catch let error as FileByteChunks.FileReadError {
            throw .invalidResponse(error.description)
        } catch {
            throw .transport(TransportFailure.describe(error, "PATCH", baseURL + RelayPaths.blobUpload(id)))
        }
        if raw.status == 201 { return (try decode(BlobUploadResponse.self, from: raw), nil) }
        return (nil, try decode(BlobUploadStatus.self, from: raw))
    }

    /// Streams blob `id` from byte `offset` on to `consume`, piece by piece
    /// (`Range: bytes=N-` to resume), refusing more than `maxBytes` in all.
    /// Each piece is lent in place (the HTTP client's buffer, valid only
    /// during the call), not copied into an array.
    /// Errors are `RelayClientError`, or what `consume` threw.
    public func downloadBlob(id: String, from offset: Int64 = 0, maxBytes: Int64,
                             consume: (UnsafeRawBufferPointer) throws -> Void) async throws {
        // The id came from a peer's message: it must never shape the request path.
        guard BlobIdentifier.isWellFormed(id) else { throw RelayClientError.invalidResponse("a blob id must be 64 lower-case hex digits") }
        var request = HTTPClientRequest(url: baseURL + RelayPaths.blob(id))
        request.method = .GET
        if offset > 0 { request.headers.add(name: "Range", value: "bytes=\(offset)-") }
        let response: HTTPClientResponse
        do { response = try await http.execute(request, timeout: Self.blobTimeout) } catch {
            throw RelayClientError.transport(TransportFailure.describe(error, "GET", baseURL + RelayPaths.blob(id)))
        }
        guard response.status == (offset > 0 ? .partialContent : .ok) else {
            let body = (try? await response.body.collect(upTo: 64 << 10)).map { Array($0.readableBytesView) } ?? []
            try RelayRawResponse(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"), body: body)
                .throwIfError()
            throw RelayClientError.invalidResponse("the relay answered HTTP \(response.status.code) for a blob")
        }
        /// What `consume` threw, told apart from the transfer's own failures.
        struct ConsumerError: Error { let underlying: any Error }
        var received = offset
        do {
            for try await buffer in response.body {
                received += Int64(buffer.readableBytes)
                guard received <= maxBytes else { throw RelayClientError.invalidResponse("the blob is longer than its pointer says") }
                do { try buffer.withUnsafeReadableBytes(consume) } catch { throw ConsumerError(underlying: error) }
            }
        } catch let error as ConsumerError {
            throw error.underlying
        } catch let error as RelayClientError {
            throw error
        } catch {
            throw RelayClientError.transport(TransportFailure.describe(error, "GET", baseURL + RelayPaths.blob(id)) + " (after \(received) bytes)")
        }
    }
}
