import HushCrypto
import HushRelayAPI
import Hummingbird

/// `POST /v1/blobs` (authenticated; raw body, streamed to a file),
/// `GET /v1/blobs/{id}` (anyone holding the unguessable id; `Range: bytes=N-` resumes)
/// and `DELETE /v1/blobs/{id}` (its uploader, once it knows the blob was fetched).
enum BlobRoutes {
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.post("/v1/blobs") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let grant = try await core.authenticate(request)
            try core.limit(core.limits.blobUploadsPerIdentity, Hex.encode(grant.identity))
            // The budgets (`BlobBudget`: the identity's quota beside its open
            // uploads, the relay's total, the address's bytes) are checked
            // before the body is read, for the declared size (the largest
            // blob without Content-Length), which the upload holds while it
            // is received; the identity's quota again, atomically, when the
            // blob is recorded (actual size).
            let quota = core.configuration.blobQuota
            let declared = request.headers[.contentLength].flatMap(Int.init)
            if let declared, declared > core.configuration.maxBlobBytes { throw RelayError.tooLarge("the blob") }
            let reserved = declared ?? min(core.configuration.maxBlobBytes, quota.maxBytes)
            let id = Hex.encode(core.random.bytes(32))
            let reservation = try core.blobBudget.reserveOneShot(id: id, bytes: max(reserved, 1), uploader: grant.identity,
                                                                 address: context.remoteAddress,
                                                                 stored: try await core.storedBlobs(uploader: grant.identity),
                                                                 blobs: core.blobs, now: core.now)
            var size = 0
            defer { core.blobBudget.finish(reservation, used: size, now: core.now) }
            do {
                size = try await core.blobs.write(id: id, body: request.body, maxBytes: max(reserved, 1))
            } catch RelayError.tooLarge(_) where declared != nil {
                throw RelayError.tooLarge("the blob (longer than its Content-Length)")
            }
            guard size > 0 else {
                core.blobs.delete(id: id)
                throw RelayError.malformed("the blob is empty")
            }
            let now = core.now
            let expiresAt = now + core.configuration.retentionSeconds * 1000
            do {
                try await core.storage.blobs.recordBlob(id: id, size: size, uploader: grant.identity, quota: quota, createdAt: now, expiresAt: expiresAt)
            } catch {
                core.blobs.delete(id: id)
                size = 0
                throw error
            }
            return try JSONBody.response(BlobUploadResponse(blobID: id, size: size, expiresAt: expiresAt), status: .created)
        }

        router.get("/v1/blobs/{id}") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            guard let id = context.parameters.get("id"), BlobStore.isValidID(id) else {
                throw RelayError.badRequest("a blob id is 64 lower-case hex digits")
            }
            guard let record = try await core.storage.blobs.blob(id: id, now: core.now) else { throw RelayError.notFound("blob") }
            // `Range: bytes=N-` resumes an interrupted download at byte N (206);
            // no other range form is served (a client only ever resumes).
            var offset = 0
            if let range = request.headers[.range] {
                guard let start = BlobRange.start(of: range), start < record.size else {
                    throw RelayError.badRequest("the only range served is bytes=N- with N below the blob's \(record.size) bytes")
                }
                offset = start
            }
            guard let reader = core.blobs.read(id: id, from: offset) else { throw RelayError.notFound("blob") }
            let body = ResponseBody(contentLength: record.size - offset) { writer in
                while let chunk = try reader.next() { try await writer.write(chunk) }
                try await writer.finish(nil)
            }
            var headers: HTTPFields = [.contentType: "application/octet-stream", .acceptRanges: "bytes"]
            if offset > 0 { headers[.contentRange] = "bytes \(offset)-\(record.size - 1)/\(record.size)" }
            return Response(status: offset > 0 ? .partialContent : .ok, headers: headers, body: body)
        }

        router.delete("/v1/blobs/{id}") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let grant = try await core.authenticate(request)
            guard let id = context.parameters.get("id"), BlobStore.isValidID(id) else {
                throw RelayError.badRequest("a blob id is 64 lower-case hex digits")
            }
            // One answer for a blob that is not there and one another identity
            // stored: the id alone tells nobody whose it is.
            guard try await core.storage.blobs.deleteBlob(id: id, uploader: grant.identity, now: core.now) else {
                throw RelayError.notFound("blob")
            }
            core.blobs.delete(id: id)
            return Response(status: .noContent)
        }
    }
}

/// The one range form the relay serves: `bytes=N-`.
enum BlobRange {
    static func start(of header: String) -> Int? {
        guard header.hasPrefix("bytes="), header.hasSuffix("-") else { return nil }
        let digits = header.dropFirst("bytes=".count).dropLast()
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int(digits)
    }
}
