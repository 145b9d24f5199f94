import HummingbirdTesting
import HushCrypto
import HushRelay
import HushRelayAPI
import HushTesting
import NIOCore
import Testing

@Suite struct MailboxRouteTests {
    @Test(arguments: StorageDriver.allCases)
    func depositSyncAckRoundTrip(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            var ids: [UInt64] = []
            for index in 0..<3 {
                let response = try await client.deposit(to: alice, requestID: "r\(index)", envelope: [UInt8](repeating: UInt8(index), count: RelayLimits.minEnvelopeBytes))
                #expect(response.status == .created)
                ids.append(try JSON.decode(DepositResponse.self, response.body).messageID)
            }
            #expect(ids == ids.sorted() && Set(ids).count == 3)
            // Keyset pagination: two, then the rest.
            let page1 = try JSON.decode(SyncResponse.self, await client.get(RelayPaths.mailboxMessages(alice.identity) + "?limit=2", token: token).body)
            #expect(page1.messages.map(\.messageID) == Array(ids.prefix(2)) && page1.hasMore)
            let page2 = try JSON.decode(SyncResponse.self,
                                        await client.get(RelayPaths.mailboxMessages(alice.identity) + "?after=\(ids[1])&limit=2", token: token).body)
            #expect(page2.messages.map(\.messageID) == [ids[2]] && !page2.hasMore)
            #expect(page2.messages[0].envelope.bytes == [UInt8](repeating: 2, count: RelayLimits.minEnvelopeBytes))
            // Acknowledge deletes; a second ack finds nothing.
            let ack = try JSON.decode(AckResponse.self, await client.json(.post, RelayPaths.mailboxAck(alice.identity), AckRequest(messageIDs: [ids[0]]), token: token).body)
            #expect(ack.deleted == 1)
            let again = try JSON.decode(AckResponse.self, await client.json(.post, RelayPaths.mailboxAck(alice.identity), AckRequest(messageIDs: [ids[0]]), token: token).body)
            #expect(again.deleted == 0)
            let rest = try JSON.decode(SyncResponse.self, await client.get(RelayPaths.mailboxMessages(alice.identity), token: token).body)
            #expect(rest.messages.map(\.messageID) == Array(ids.dropFirst()))
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func repeatedRequestIDReturnsSameResultAndConflictsOnOtherEnvelope(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let first = try JSON.decode(DepositResponse.self, await client.deposit(to: alice, requestID: "same", envelope: sealedSized([1, 2, 3])).body)
            relay.clock.advance(seconds: 5)
            let repeated = try await client.deposit(to: alice, requestID: "same", envelope: sealedSized([1, 2, 3]))
            #expect(repeated.status == .created)
            #expect(try JSON.decode(DepositResponse.self, repeated.body) == first)
            let other = try await client.deposit(to: alice, requestID: "same", envelope: sealedSized([9]))
            #expect(other.status == .conflict)
            let stored = try JSON.decode(SyncResponse.self, await client.get(RelayPaths.mailboxMessages(alice.identity), token: token).body)
            #expect(stored.messages.count == 1)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func depositErrors(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice"), stranger = try TestUser(seed: "stranger")
        try await relay.application().test(.router) { client in
            _ = try await client.registerAndAuthenticate(alice, relay: relay)
            #expect(try await client.deposit(to: stranger, requestID: "a", envelope: sealedSized([1])).status == .notFound)
            #expect(try await client.deposit(to: alice, requestID: "bad id!", envelope: sealedSized([1])).status == .unprocessableContent)
            #expect(try await client.deposit(to: alice, requestID: "empty", envelope: []).status == .unprocessableContent)
            let big = try await client.deposit(to: alice, requestID: "big", envelope: [UInt8](repeating: 7, count: RelayLimits.maxEnvelopeBytes + 1))
            #expect(big.status == .contentTooLarge)
            let malformed = try await client.execute(uri: RelayPaths.mailboxMessages(alice.identity), method: .post,
                                                     body: ByteBuffer(string: #"{"requestID":"x","envelope":"%%%"}"#))
            #expect(malformed.status == .unprocessableContent)
            #expect(JSON.errorCode(malformed) == "malformed")
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func firstContactIsRateLimitedButCredentialsPass(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) { $0.rateLimits.firstContactPerAddress = .init(burst: 2, perSecond: 1.0 / 600) }
        let alice = try TestUser(seed: "alice")
        let credential = DeterministicRandom(seed: "credential").bytes(32)
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            #expect(try await client.deposit(to: alice, requestID: "f1", envelope: sealedSized([1])).status == .created)
            #expect(try await client.deposit(to: alice, requestID: "f2", envelope: sealedSized([2])).status == .created)
            let limited = try await client.deposit(to: alice, requestID: "f3", envelope: sealedSized([3]))
            #expect(limited.status == .tooManyRequests)
            #expect(JSON.errorCode(limited) == "rate_limited")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
            // A repeat of an accepted first contact still answers with its result.
            #expect(try await client.deposit(to: alice, requestID: "f1", envelope: sealedSized([1])).status == .created)
            // The owner hands out a credential; deposits presenting it pass.
            let hash = Base64Bytes(DeliveryCredential.hash(credential))
            #expect(try await client.json(.post, RelayPaths.mailboxCredentials(alice.identity), CredentialsRequest(add: [hash]), token: token).status == .ok)
            #expect(try await client.deposit(to: alice, requestID: "c1", envelope: sealedSized([4]), credential: credential).status == .created)
            let wrong = try await client.deposit(to: alice, requestID: "c2", envelope: sealedSized([5]), credential: [UInt8](repeating: 0, count: 32))
            #expect(wrong.status == .forbidden)
            #expect(JSON.errorCode(wrong) == "invalid_credential")
            // Revoked: refused again.
            _ = try await client.json(.post, RelayPaths.mailboxCredentials(alice.identity), CredentialsRequest(remove: [hash]), token: token)
            #expect(try await client.deposit(to: alice, requestID: "c3", envelope: sealedSized([6]), credential: credential).status == .forbidden)
        }
    }

    /// The first-contact bucket is per source address and target: one address
    /// (a household, a carrier-grade NAT) that used up one mailbox's burst can
    /// still make a first contact to someone else; the per-address bucket
    /// over all targets is ten times as large.
    @Test(arguments: StorageDriver.allCases)
    func firstContactsToDifferentTargetsDoNotShareABucket(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) { $0.rateLimits.firstContactPerAddress = .init(burst: 2, perSecond: 1.0 / 600) }
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob")
        try await relay.application().test(.router) { client in
            _ = try await client.registerAndAuthenticate(alice, relay: relay)
            _ = try await client.registerAndAuthenticate(bob, relay: relay)
            #expect(try await client.deposit(to: alice, requestID: "a1", envelope: sealedSized([1])).status == .created)
            #expect(try await client.deposit(to: alice, requestID: "a2", envelope: sealedSized([2])).status == .created)
            #expect(try await client.deposit(to: alice, requestID: "a3", envelope: sealedSized([3])).status == .tooManyRequests)
            #expect(try await client.deposit(to: bob, requestID: "b1", envelope: sealedSized([4])).status == .created)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func anotherIdentitysMailboxIsRefused(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice"), mallory = try TestUser(seed: "mallory")
        try await relay.application().test(.router) { client in
            _ = try await client.registerAndAuthenticate(alice, relay: relay)
            let malloryToken = try await client.registerAndAuthenticate(mallory, relay: relay)
            _ = try await client.deposit(to: alice, requestID: "secret", envelope: sealedSized([42]))
            let read = try await client.get(RelayPaths.mailboxMessages(alice.identity), token: malloryToken)
            #expect(read.status == .forbidden)
            #expect(JSON.errorCode(read) == "forbidden")
            let ack = try await client.json(.post, RelayPaths.mailboxAck(alice.identity), AckRequest(messageIDs: [1]), token: malloryToken)
            #expect(ack.status == .forbidden)
            let credentials = try await client.json(.post, RelayPaths.mailboxCredentials(alice.identity),
                                                    CredentialsRequest(add: [Base64Bytes([UInt8](repeating: 1, count: 32))]), token: malloryToken)
            #expect(credentials.status == .forbidden)
            #expect(try await client.get(RelayPaths.mailboxMessages(alice.identity)).status == .unauthorized)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func syncAndAckLimits(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            #expect(try await client.get(RelayPaths.mailboxMessages(alice.identity) + "?limit=0", token: token).status == .badRequest)
            #expect(try await client.get(RelayPaths.mailboxMessages(alice.identity) + "?limit=501", token: token).status == .badRequest)
            #expect(try await client.get(RelayPaths.mailboxMessages(alice.identity) + "?after=x", token: token).status == .badRequest)
            let tooMany = AckRequest(messageIDs: Array(1...UInt64(RelayLimits.maxAckIDs + 1)))
            #expect(try await client.json(.post, RelayPaths.mailboxAck(alice.identity), tooMany, token: token).status == .unprocessableContent)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func quotaRefusesBeyondCountAndBytes(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) {
            $0.mailboxQuotaCount = 3
            $0.mailboxQuotaBytes = 2_000
            $0.rateLimits.firstContactPerAddress = .init(burst: 100, perSecond: 1)
        }
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let big = try await client.deposit(to: alice, requestID: "big", envelope: [UInt8](repeating: 1, count: 2_001))
            #expect(big.status == .contentTooLarge)
            #expect(JSON.errorCode(big) == "quota_exceeded")
            var ids: [UInt64] = []
            for index in 0..<3 {
                ids.append(try JSON.decode(DepositResponse.self, await client.deposit(to: alice, requestID: "q\(index)", envelope: sealedSized([1])).body).messageID)
            }
            let q3 = try await client.deposit(to: alice, requestID: "q3", envelope: sealedSized([1]))
            #expect(JSON.errorCode(q3) == "quota_exceeded", "\(q3.status) \(String(buffer: q3.body))")
            _ = try await client.json(.post, RelayPaths.mailboxAck(alice.identity), AckRequest(messageIDs: [ids[0]]), token: token)
            #expect(try await client.deposit(to: alice, requestID: "q4", envelope: sealedSized([1])).status == .created)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func undeliveredEnvelopesExpire(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) { $0.retentionSeconds = 3_600 }
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            _ = try await client.deposit(to: alice, requestID: "old", envelope: sealedSized([1]))
            relay.clock.advance(seconds: 1_800)
            _ = try await client.deposit(to: alice, requestID: "new", envelope: sealedSized([2]))
            relay.clock.advance(seconds: 1_801)
            let result = try await relay.server.sweepNow()
            #expect(result.envelopes == 1)
            let token2 = try await client.authenticate(alice, origin: relay.origin)
            _ = token
            let left = try JSON.decode(SyncResponse.self, await client.get(RelayPaths.mailboxMessages(alice.identity), token: token2).body)
            #expect(left.messages.map(\.envelope.bytes) == [sealedSized([2])])
        }
    }
}
