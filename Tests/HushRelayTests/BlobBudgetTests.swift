import Foundation
import HTTPTypes
import HummingbirdTesting
import HushRelay
import HushRelayAPI
import NIOCore
import Testing

/// The blob budgets beside each identity's quota (`BlobBudget`, RELAY-API
/// "Blob budgets"): a one-shot upload respects the room open resumable
/// uploads hold, one address cannot store more than its bucket however many
/// fresh identities it registers, and all identities together stop at the
/// relay's total. Every request here comes from the same (test) address.
@Suite struct BlobBudgetTests {
    static let lengthField = HTTPField.Name(BlobUploadHeaders.length)!

    @Test(arguments: StorageDriver.allCases)
    func aOneShotUploadRespectsTheRoomOpenUploadsHold(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) {
            $0.maxBlobBytes = 100_000
            $0.blobQuota = BlobQuota(maxBytes: 100_000, maxCount: 100)
        }
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            var start: HTTPFields = [.authorization: "Bearer \(token)"]
            start[Self.lengthField] = "60000"
            #expect(try await client.execute(uri: RelayPaths.blobUploads, method: .post, headers: start).status == .created)
            // 60,000 of 100,000 bytes are held by the open upload: 50,000 more do not fit.
            let over = try await client.execute(uri: RelayPaths.blobs, method: .post, headers: [.authorization: "Bearer \(token)"],
                                                body: ByteBuffer(bytes: [UInt8](repeating: 3, count: 50_000)))
            #expect(over.status == .contentTooLarge, "\(String(buffer: over.body))")
            #expect(JSON.errorCode(over) == "quota_exceeded")
            #expect(try FileManager.default.contentsOfDirectory(atPath: relay.blobs.path).allSatisfy { $0.hasPrefix(".") },
                    "a refused upload left a blob file")
            let fits = try await client.execute(uri: RelayPaths.blobs, method: .post, headers: [.authorization: "Bearer \(token)"],
                                                body: ByteBuffer(bytes: [UInt8](repeating: 3, count: 40_000)))
            #expect(fits.status == .created)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func freshIdentitiesFromOneAddressShareItsBucket(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) {
            $0.maxBlobBytes = 100_000
            $0.blobQuota = BlobQuota(maxBytes: 100_000, maxCount: 100)
            $0.rateLimits.blobBytesPerAddress = .init(burst: 150_000, perSecond: 1)
        }
        try await relay.application().test(.router) { client in
            var answers: [TestResponse] = []
            for name in ["one", "two", "three"] {
                let token = try await client.registerAndAuthenticate(try TestUser(seed: "fresh-\(name)"), relay: relay)
                answers.append(try await client.execute(uri: RelayPaths.blobs, method: .post, headers: [.authorization: "Bearer \(token)"],
                                                        body: ByteBuffer(bytes: [UInt8](repeating: 5, count: 60_000))))
            }
            #expect(answers.map(\.status) == [.created, .created, .tooManyRequests])
            let limited = answers[2]
            #expect(JSON.errorCode(limited) == "rate_limited")
            #expect(String(buffer: limited.body).contains("from your network address"))
            #expect(limited.headers[.retryAfter].flatMap(Int.init).map { $0 > 0 } == true)
            // A resumable upload's declared length is charged as well.
            let four = try TestUser(seed: "fresh-four")
            var start: HTTPFields = [.authorization: "Bearer \(try await client.registerAndAuthenticate(four, relay: relay))"]
            start[Self.lengthField] = "60000"
            #expect(try await client.execute(uri: RelayPaths.blobUploads, method: .post, headers: start).status == .tooManyRequests)
            // The bucket refills (1 byte a second here): later the same upload is taken.
            relay.clock.advance(seconds: 60_000)
            start[.authorization] = "Bearer \(try await client.authenticate(four, origin: relay.origin))"
            #expect(try await client.execute(uri: RelayPaths.blobUploads, method: .post, headers: start).status == .created)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func allIdentitiesStopAtTheRelaysTotal(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) {
            $0.maxBlobBytes = 100_000
            $0.blobQuota = BlobQuota(maxBytes: 100_000, maxCount: 100)
            $0.blobTotalBytes = 150_000
        }
        try await relay.application().test(.router) { client in
            let users = try ["one", "two", "three"].map { try TestUser(seed: "total-\($0)") }
            var tokens: [String] = []
            for user in users { tokens.append(try await client.registerAndAuthenticate(user, relay: relay)) }
            func upload(_ size: Int, _ token: String) async throws -> TestResponse {
                try await client.execute(uri: RelayPaths.blobs, method: .post, headers: [.authorization: "Bearer \(token)"],
                                         body: ByteBuffer(bytes: [UInt8](repeating: 9, count: size)))
            }
            #expect(try await upload(60_000, tokens[0]).status == .created)
            var start: HTTPFields = [.authorization: "Bearer \(tokens[1])"]
            start[Self.lengthField] = "60000"
            #expect(try await client.execute(uri: RelayPaths.blobUploads, method: .post, headers: start).status == .created)
            // 120,000 of 150,000 taken (one blob, one open upload): a third identity gets 413 with the reason.
            let full = try await upload(40_000, tokens[2])
            #expect(full.status == .contentTooLarge)
            #expect(JSON.errorCode(full) == "quota_exceeded")
            #expect(String(buffer: full.body).contains("storage for attachments is full"))
            #expect(try await upload(30_000, tokens[2]).status == .created)
            // Expired blobs give the room back.
            relay.clock.advance(seconds: relay.server.core.configuration.retentionSeconds + 1)
            _ = try await relay.server.sweepNow()
            #expect(try await upload(60_000, try await client.authenticate(users[2], origin: relay.origin)).status == .created)
        }
    }
}
