import Foundation
import Glibc
import HTTPTypes
import HummingbirdTesting
@testable import HushRelay
import HushRelayAPI
import NIOCore
import Testing

@Suite struct BlobRouteTests {
    /// A blob file the disk cannot take is the relay's state, answered 503 with
    /// Retry-After like a full database disk (`BlobDiskFailure`); a walkthrough's
    /// upload on a full disk got 500 with none. Other refusals stay internal failures.
    @Test func aFullOrFailingDiskUnderABlobIsTheRelaysStateNotABug() {
        for code in [ENOSPC, EDQUOT, EIO, EFBIG, EROFS] {
            #expect(BlobStore.fileFailure("cannot write a blob file", code) is BlobDiskFailure, "errno \(code)")
        }
        #expect(BlobStore.fileFailure("cannot write a blob file", EBADF) is RelayError)
        #expect(RelayError.storageUnavailable.status == .serviceUnavailable)
    }

    @Test(arguments: StorageDriver.allCases)
    func uploadDownloadExpire(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) {
            $0.maxBlobBytes = 100_000
            $0.retentionSeconds = 60
        }
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(try await client.execute(uri: RelayPaths.blobs, method: .post, body: ByteBuffer(bytes: bytes)).status == .unauthorized)
            let upload = try await client.execute(uri: RelayPaths.blobs, method: .post, headers: [.authorization: "Bearer \(token)"],
                                                  body: ByteBuffer(bytes: bytes))
            #expect(upload.status == .created)
            let blob = try JSON.decode(BlobUploadResponse.self, upload.body)
            #expect(blob.size == bytes.count)
            let download = try await client.get(RelayPaths.blob(blob.blobID))
            #expect(download.status == .ok)
            #expect(Array(download.body.readableBytesView) == bytes)
            #expect(FileManager.default.fileExists(atPath: relay.blobs.path + "/" + blob.blobID))
            relay.clock.advance(seconds: 61)
            #expect(try await client.get(RelayPaths.blob(blob.blobID)).status == .notFound)
            let swept = try await relay.server.sweepNow()
            #expect(swept.expiredBlobIDs == [blob.blobID])
            #expect(!FileManager.default.fileExists(atPath: relay.blobs.path + "/" + blob.blobID))
        }
    }

    /// Only the uploader deletes a blob; the same 404 answers another
    /// identity, an unknown id and a second delete, and the quota the blob
    /// held is free again.
    @Test(arguments: StorageDriver.allCases)
    func theUploaderDeletesABlobAndGetsItsQuotaBack(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) { $0.blobQuota = BlobQuota(maxBytes: 3 << 20, maxCount: 100) }
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob")
        try await relay.application().test(.router) { client in
            let aliceToken = try await client.registerAndAuthenticate(alice, relay: relay)
            let bobToken = try await client.registerAndAuthenticate(bob, relay: relay)
            func upload() async throws -> TestResponse {
                try await client.execute(uri: RelayPaths.blobs, method: .post, headers: [.authorization: "Bearer \(aliceToken)"],
                                         body: ByteBuffer(bytes: [UInt8](repeating: 7, count: 2 << 20)))
            }
            func delete(_ id: String, _ token: String?) async throws -> TestResponse {
                try await client.execute(uri: RelayPaths.blob(id), method: .delete,
                                         headers: token.map { [.authorization: "Bearer \($0)"] } ?? [:])
            }
            let first = try await upload()
            #expect(first.status == .created)
            let id = try JSON.decode(BlobUploadResponse.self, first.body).blobID
            #expect(try await upload().status == .contentTooLarge)
            #expect(try await delete(id, nil).status == .unauthorized)
            let byBob = try await delete(id, bobToken)
            #expect(byBob.status == .notFound)
            #expect(try await client.get(RelayPaths.blob(id)).status == .ok)
            #expect(try await delete(id, aliceToken).status == .noContent)
            #expect(try await client.get(RelayPaths.blob(id)).status == .notFound)
            #expect(!FileManager.default.fileExists(atPath: relay.blobs.path + "/" + id))
            let again = try await delete(id, aliceToken)
            #expect(again.status == .notFound)
            #expect(JSON.errorCode(again) == JSON.errorCode(byBob))
            #expect(try await delete(String(repeating: "a", count: 64), aliceToken).status == .notFound)
            #expect(try await delete("..%2Frelay.key", aliceToken).status == .badRequest)
            #expect(try await upload().status == .created)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func oversizedBlobIs413AndLeavesNoFile(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) { $0.maxBlobBytes = 1_000 }
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let response = try await client.execute(uri: RelayPaths.blobs, method: .post, headers: [.authorization: "Bearer \(token)"],
                                                    body: ByteBuffer(bytes: [UInt8](repeating: 1, count: 1_001)))
            #expect(response.status == .contentTooLarge)
            #expect(try FileManager.default.contentsOfDirectory(atPath: relay.blobs.path).isEmpty)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func unknownAndInvalidBlobIDs(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        try await relay.application().test(.router) { client in
            let unknown = try await client.get(RelayPaths.blob(String(repeating: "a", count: 64)))
            let invalid = try await client.get(RelayPaths.blob("..%2Frelay.key"))
            #expect(unknown.status == .notFound)
            #expect(invalid.status == .badRequest)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func perIdentityQuotasAndUploadRateRefuseWithClearErrors(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) {
            $0.blobQuota = BlobQuota(maxBytes: 3 << 20, maxCount: 100)
            $0.rateLimits.blobUploadsPerIdentity = .init(burst: 5, perSecond: 1.0 / 3600)
        }
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob")
        try await relay.application().test(.router) { client in
            let aliceToken = try await client.registerAndAuthenticate(alice, relay: relay)
            let bobToken = try await client.registerAndAuthenticate(bob, relay: relay)
            func upload(_ size: Int, _ token: String) async throws -> TestResponse {
                try await client.execute(uri: RelayPaths.blobs, method: .post, headers: [.authorization: "Bearer \(token)"],
                                         body: ByteBuffer(bytes: [UInt8](repeating: 7, count: size)))
            }
            #expect(try await upload(2 << 20, aliceToken).status == .created)
            // Over the byte quota: 413 quota_exceeded, and no file is left behind.
            let over = try await upload(2 << 20, aliceToken)
            #expect(over.status == .contentTooLarge)
            #expect(JSON.errorCode(over) == "quota_exceeded")
            #expect(try JSON.decode(RelayErrorBody.self, over.body).error.message.contains("blob storage is full"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: relay.blobs.path).count == 1)
            // Bob's quota is his own.
            #expect(try await upload(2 << 20, bobToken).status == .created)
            // The upload rate: five at once, then 429.
            for _ in 0..<3 { #expect(try await upload(10, aliceToken).status == .created) }
            let limited = try await upload(10, aliceToken)
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] != nil)
        }
    }
}

/// `Range: bytes=N-` resumes a download where it stopped (RELAY-API, blobs).
@Suite struct BlobRangeTests {
    @Test(arguments: StorageDriver.allCases)
    func aRangedReadResumesAtTheByteAsked(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) { $0.maxBlobBytes = 300_000 }
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            let upload = try await client.execute(uri: RelayPaths.blobs, method: .post, headers: [.authorization: "Bearer \(token)"],
                                                  body: ByteBuffer(bytes: bytes))
            let blob = try JSON.decode(BlobUploadResponse.self, upload.body)
            let tail = try await client.execute(uri: RelayPaths.blob(blob.blobID), method: .get, headers: [.range: "bytes=123457-"])
            #expect(tail.status == .partialContent)
            #expect(tail.headers[.contentRange] == "bytes 123457-199999/200000")
            #expect(Array(tail.body.readableBytesView) == Array(bytes[123_457...]))
            let whole = try await client.execute(uri: RelayPaths.blob(blob.blobID), method: .get, headers: [.range: "bytes=0-"])
            #expect(whole.status == .ok)
            #expect(Array(whole.body.readableBytesView) == bytes)
            for refused in ["bytes=200000-", "bytes=5-10", "bytes=-5", "items=3-", "bytes=+3-"] {
                let response = try await client.execute(uri: RelayPaths.blob(blob.blobID), method: .get, headers: [.range: refused])
                #expect(response.status == .badRequest, "\(refused)")
            }
        }
    }
}

/// Resumable uploads (RELAY-API, `/v1/blobs/uploads`).
@Suite struct BlobUploadRouteTests {
    static let lengthField = HTTPField.Name(BlobUploadHeaders.length)!
    static let offsetField = HTTPField.Name(BlobUploadHeaders.offset)!

    @Test(arguments: StorageDriver.allCases)
    func anUploadCutInTwoBecomesOneBlob(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) { $0.maxBlobBytes = 300_000 }
        let alice = try TestUser(seed: "alice"), mallory = try TestUser(seed: "mallory")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let otherToken = try await client.registerAndAuthenticate(mallory, relay: relay)
            let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
            let auth: HTTPFields = [.authorization: "Bearer \(token)"]
            var start = auth
            start[Self.lengthField] = String(bytes.count)
            let created = try await client.execute(uri: RelayPaths.blobUploads, method: .post, headers: start)
            #expect(created.status == .created)
            let upload = try JSON.decode(BlobUploadStatus.self, created.body)
            #expect(upload.received == 0 && upload.length == bytes.count)

            func patch(_ range: Range<Int>, offset: Int, headers: HTTPFields = auth) async throws -> TestResponse {
                var fields = headers
                fields[Self.offsetField] = String(offset)
                return try await client.execute(uri: RelayPaths.blobUpload(upload.uploadID), method: .patch, headers: fields,
                                                body: ByteBuffer(bytes: bytes[range]))
            }
            let first = try await patch(0..<80_000, offset: 0)
            #expect(first.status == .ok)
            #expect(try JSON.decode(BlobUploadStatus.self, first.body).received == 80_000)
            // Only the uploader sees or continues it; a wrong offset says where to resume.
            #expect(try await patch(80_000..<90_000, offset: 80_000, headers: [.authorization: "Bearer \(otherToken)"]).status == .notFound)
            let wrong = try await patch(70_000..<90_000, offset: 70_000)
            #expect(wrong.status == .conflict)
            #expect(String(buffer: wrong.body).contains("holds 80000 bytes"))
            let status = try await client.execute(uri: RelayPaths.blobUpload(upload.uploadID), method: .get, headers: auth)
            #expect(try JSON.decode(BlobUploadStatus.self, status.body).received == 80_000)
            let done = try await patch(80_000..<200_000, offset: 80_000)
            #expect(done.status == .created, "\(String(buffer: done.body))")
            let blob = try JSON.decode(BlobUploadResponse.self, done.body)
            #expect(blob.blobID == upload.uploadID && blob.size == bytes.count)
            let download = try await client.get(RelayPaths.blob(blob.blobID))
            #expect(Array(download.body.readableBytesView) == bytes)
            #expect(try await relay.server.core.storage.blobs.blobUsage(uploader: alice.identity, now: relay.clock.now()).bytes == bytes.count)
            #expect(try await client.execute(uri: RelayPaths.blobUpload(upload.uploadID), method: .get, headers: auth).status == .notFound)
        }
    }

    /// An attempt still being received (its writer holds the lock) refuses a
    /// second one with 409 instead of letting both write.
    @Test func oneWriterPerUploadAtATime() async throws {
        let relay = try await TestRelay(driver: .memory)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            var start: HTTPFields = [.authorization: "Bearer \(token)"]
            start[Self.lengthField] = "100"
            let upload = try JSON.decode(BlobUploadStatus.self, try await client.execute(uri: RelayPaths.blobUploads, method: .post, headers: start).body)
            let held = open(relay.blobs.path + "/.resumable-" + upload.uploadID, O_RDONLY)
            #expect(held >= 0 && flock(held, LOCK_EX) == 0)
            var patch: HTTPFields = [.authorization: "Bearer \(token)"]
            patch[Self.offsetField] = "0"
            let refused = try await client.execute(uri: RelayPaths.blobUpload(upload.uploadID), method: .patch, headers: patch,
                                                   body: ByteBuffer(bytes: [UInt8](repeating: 2, count: 100)))
            #expect(refused.status == .conflict)
            #expect(String(buffer: refused.body).contains("still being received"))
            close(held)
            let accepted = try await client.execute(uri: RelayPaths.blobUpload(upload.uploadID), method: .patch, headers: patch,
                                                    body: ByteBuffer(bytes: [UInt8](repeating: 2, count: 100)))
            #expect(accepted.status == .created)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func declaredLengthsAreChecked(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) {
            $0.maxBlobBytes = 100_000
            $0.blobQuota = BlobQuota(maxBytes: 50_000, maxCount: 10)
        }
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            for (length, expected) in [("0", HTTPResponse.Status.badRequest), ("x", .badRequest), ("100001", .contentTooLarge),
                                       ("60000", .contentTooLarge), ("40000", .created)] {
                var headers: HTTPFields = [.authorization: "Bearer \(token)"]
                headers[Self.lengthField] = length
                #expect(try await client.execute(uri: RelayPaths.blobUploads, method: .post, headers: headers).status == expected, "\(length)")
            }
            // More bytes than declared: 413, and the upload keeps what it had.
            var headers: HTTPFields = [.authorization: "Bearer \(token)"]
            headers[Self.lengthField] = "10"
            let upload = try JSON.decode(BlobUploadStatus.self, try await client.execute(uri: RelayPaths.blobUploads, method: .post, headers: headers).body)
            var patch: HTTPFields = [.authorization: "Bearer \(token)"]
            patch[Self.offsetField] = "0"
            let over = try await client.execute(uri: RelayPaths.blobUpload(upload.uploadID), method: .patch, headers: patch,
                                                body: ByteBuffer(bytes: [UInt8](repeating: 1, count: 11)))
            #expect(over.status == .contentTooLarge)
            let status = try await client.execute(uri: RelayPaths.blobUpload(upload.uploadID), method: .get,
                                                  headers: [.authorization: "Bearer \(token)"])
            #expect(try JSON.decode(BlobUploadStatus.self, status.body).received == 0)
        }
    }

    /// Open uploads count against the quota by their declared length, and an
    /// identity may have only a few open: uploads it never finishes cannot
    /// fill the disk.
    @Test(arguments: StorageDriver.allCases)
    func openUploadsCountAgainstTheQuota(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) {
            $0.maxBlobBytes = 100_000
            $0.blobQuota = BlobQuota(maxBytes: 100_000, maxCount: 100)
        }
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let bobToken = try await client.registerAndAuthenticate(bob, relay: relay)
            func start(_ length: Int, _ token: String) async throws -> TestResponse {
                var headers: HTTPFields = [.authorization: "Bearer \(token)"]
                headers[Self.lengthField] = String(length)
                return try await client.execute(uri: RelayPaths.blobUploads, method: .post, headers: headers)
            }
            #expect(try await start(60_000, token).status == .created)
            let over = try await start(60_000, token)
            #expect(over.status == .contentTooLarge)
            #expect(String(buffer: over.body).contains("quota_exceeded"))
            #expect(try await start(60_000, bobToken).status == .created)
            for _ in 0..<3 { #expect(try await start(1_000, token).status == .created) }
            let tooMany = try await start(1_000, token)
            #expect(tooMany.status == .contentTooLarge)
            #expect(String(buffer: tooMany.body).contains("uploads in progress"))
            // Abandoned uploads are swept after a day and release the quota.
            relay.clock.advance(seconds: 86_401)
            _ = try await relay.server.sweepNow()
            let again = try await start(60_000, try await client.authenticate(alice, origin: relay.origin))
            #expect(again.status == .created, "\(String(buffer: again.body))")
        }
    }

    /// The sweep removes an owner file without its data file and a blob file
    /// the index does not know, once past their grace period.
    @Test(arguments: StorageDriver.allCases)
    func orphanedFilesAreSwept(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let directory = relay.blobs.path
        let orphanOwner = directory + "/.resumable-" + String(repeating: "a", count: 64) + ".owner"
        let orphanBlob = directory + "/" + String(repeating: "b", count: 64)
        #expect(FileManager.default.createFile(atPath: orphanOwner, contents: Data("00 10".utf8)))
        #expect(FileManager.default.createFile(atPath: orphanBlob, contents: Data([1, 2, 3])))
        // Written "now" on the relay's clock.
        let now = Date(timeIntervalSince1970: Double(relay.clock.now()) / 1000)
        for path in [orphanOwner, orphanBlob] { try FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: path) }
        _ = try await relay.server.sweepNow()
        #expect(FileManager.default.fileExists(atPath: orphanBlob), "within the grace period")
        relay.clock.advance(seconds: 86_401)
        _ = try await relay.server.sweepNow()
        #expect(!FileManager.default.fileExists(atPath: orphanOwner))
        #expect(!FileManager.default.fileExists(atPath: orphanBlob))
    }
}
