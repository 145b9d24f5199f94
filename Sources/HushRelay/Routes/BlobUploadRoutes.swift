import HushCrypto
import HushRelayAPI
import Hummingbird

/// Resumable uploads (docs/RELAY-API.md): `POST /v1/blobs/uploads` declares a
/// blob's length and returns an upload id; `PATCH /v1/blobs/uploads/{id}`
/// with `Hush-Upload-Offset` appends bytes from where the relay's copy ends
/// (201 with the blob once complete); `GET /v1/blobs/uploads/{id}` says how
/// many bytes it holds, so a client that was cut off (or killed) resumes
/// after the last byte that arrived. Only the identity that started an upload
/// may see or continue it. The quota is checked when it starts against the
/// declared length plus those of the identity's other open uploads (at most
/// `BlobStore.maxOpenUploadsPerIdentity` at once), and again, atomically,
/// when the blob is recorded.
enum BlobUploadRoutes {
    static let lengthField = HTTPFields.Element.Name(BlobUploadHeaders.length)!
    static let offsetField = HTTPFields.Element.Name(BlobUploadHeaders.offset)!

    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.post("/v1/blobs/uploads") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let grant = try await core.authenticate(request)
            try core.limit(core.limits.blobUploadsPerIdentity, Hex.encode(grant.identity))
            guard let length = request.headers[lengthField].flatMap(Int.init), length > 0 else {
                throw RelayError.badRequest("\(BlobUploadHeaders.length) must give the blob's length in bytes (at least 1)")
            }
            guard length <= core.configuration.maxBlobBytes else { throw RelayError.tooLarge("the blob") }
            // The declared length is held in every budget (`BlobBudget`)
            // until the upload completes or is swept as abandoned, and an
            // identity may have only a few open at once.
            let id = Hex.encode(core.random.bytes(32))
            try core.blobBudget.startResumable(id: id, length: length, uploader: grant.identity, address: context.remoteAddress,
                                               stored: try await core.storedBlobs(uploader: grant.identity),
                                               blobs: core.blobs, now: core.now)
            return try JSONBody.response(BlobUploadStatus(uploadID: id, length: length, received: 0), status: .created)
        }

        router.get("/v1/blobs/uploads/{id}") { request, context in
            let (id, upload, _) = try await owned(request, context, core: core)
            return try JSONBody.response(BlobUploadStatus(uploadID: id, length: upload.length, received: upload.received), status: .ok)
        }

        router.patch("/v1/blobs/uploads/{id}") { request, context in
            let (id, upload, uploader) = try await owned(request, context, core: core)
            guard let offset = request.headers[offsetField].flatMap(Int.init), offset == upload.received else {
                throw RelayError.conflict("the upload holds \(upload.received) bytes: send \(BlobUploadHeaders.offset): \(upload.received) and the bytes from there")
            }
            let size = try await core.blobs.append(id: id, at: offset, length: upload.length, body: request.body)
            guard size == upload.length else {
                return try JSONBody.response(BlobUploadStatus(uploadID: id, length: upload.length, received: size), status: .ok)
            }
            try core.blobs.completeResumable(id: id)
            let now = core.now
            let expiresAt = now + core.configuration.retentionSeconds * 1000
            do {
                try await core.storage.blobs.recordBlob(id: id, size: size, uploader: uploader, quota: core.configuration.blobQuota,
                                                        createdAt: now, expiresAt: expiresAt)
            } catch {
                core.blobs.delete(id: id)
                throw error
            }
            return try JSONBody.response(BlobUploadResponse(blobID: id, size: size, expiresAt: expiresAt), status: .created)
        }
    }

    /// The upload named in the path, if the caller started it (404 otherwise:
    /// no one learns whether someone else's upload exists).
    private static func owned(_ request: Request, _ context: RelayRequestContext,
                              core: RelayCore) async throws -> (String, BlobStore.Resumable, [UInt8]) {
        try core.limit(core.limits.perAddress, context.remoteAddress)
        let grant = try await core.authenticate(request)
        guard let id = context.parameters.get("id"), BlobStore.isValidID(id) else {
            throw RelayError.badRequest("an upload id is 64 lower-case hex digits")
        }
        guard let upload = core.blobs.resumable(id: id), ConstantTime.equals(upload.uploader, grant.identity) else {
            throw RelayError.notFound("upload")
        }
        return (id, upload, grant.identity)
    }
}
