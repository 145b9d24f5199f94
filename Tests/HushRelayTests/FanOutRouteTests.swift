import Foundation
import HTTPTypes
import HummingbirdTesting
import HushCrypto
@testable import HushRelay
import HushRelayAPI
import HushTesting
import NIOCore
import Testing

/// `POST /v1/fanout` through the router: per-recipient results, whole-request
/// refusals, proof of work per mailbox, the rate-limit charge, and pushes.
@Suite struct FanOutRouteTests {
    static let envelope = sealedSized(Array("group message".utf8))

    static func request(_ requestID: String, _ recipients: [FanOutRequest.Recipient], envelope: [UInt8] = FanOutRouteTests.envelope,
                        digest: [UInt8]? = nil) -> FanOutRequest {
        FanOutRequest(requestID: requestID, envelope: Base64Bytes(envelope), recipients: recipients, envelopeSHA256: digest.map(Base64Bytes.init))
    }

    static func to(_ user: TestUser, credential: [UInt8]? = nil, work: [UInt8]? = nil) -> FanOutRequest.Recipient {
        .init(mailbox: Base64Bytes(user.identity), credential: credential.map(Base64Bytes.init), work: work.map(Base64Bytes.init))
    }

    static func results(_ response: TestResponse) throws -> [FanOutRecipientResult] {
        guard response.status == .ok else {
            throw TestFailure("the fan-out answered \(response.status): \(String(buffer: response.body))")
        }
        return try JSON.decode(FanOutResponse.self, response.body).results
    }

    static func sync(_ client: some TestClientProtocol, _ user: TestUser, token: String) async throws -> [MailboxMessage] {
        try JSON.decode(SyncResponse.self, try await client.get(RelayPaths.mailboxMessages(user.identity) + "?limit=100", token: token).body).messages
    }

    @Test func eachRecipientGetsTheAnswerASingleDepositWouldAndOnlyTheAdmittedAreStored() async throws {
        let relay = try TestRelay()
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob"), carol = try TestUser(seed: "carol")
        let stranger = try TestUser(seed: "stranger")
        let credential = [UInt8](repeating: 0xA1, count: 32)
        try await relay.application().test(.router) { client in
            let aliceToken = try await client.registerAndAuthenticate(alice, relay: relay)
            let bobToken = try await client.registerAndAuthenticate(bob, relay: relay)
            let carolToken = try await client.registerAndAuthenticate(carol, relay: relay)
            let added = try await client.json(.post, RelayPaths.mailboxCredentials(alice.identity),
                                              CredentialsRequest(add: [Base64Bytes(DeliveryCredential.hash(credential))]), token: aliceToken)
            #expect(added.status == .ok)
            let recipients = [Self.to(alice, credential: credential), Self.to(bob), Self.to(stranger), Self.to(carol, credential: [1, 2, 3])]
            let results = try Self.results(try await client.json(.post, RelayPaths.fanOut, Self.request("fan-1", recipients)))
            #expect(results.count == 4)
            #expect(results[0].status == 201 && results[1].status == 201)
            #expect(results[0].messageID != nil && results[1].messageID != nil && results[0].timestamp == relay.now)
            #expect(results[2] == FanOutRecipientResult(status: 404, error: "not_found", message: RelayError.notFound("mailbox").clientMessage))
            #expect(results[3].status == 403 && results[3].error == "invalid_credential" && results[3].messageID == nil)
            for (user, token, result) in [(alice, aliceToken, results[0]), (bob, bobToken, results[1])] {
                let held = try await Self.sync(client, user, token: token)
                #expect(held.map(\.messageID) == [result.messageID!] && held[0].envelope.bytes == Self.envelope)
            }
            #expect(try await Self.sync(client, carol, token: carolToken).isEmpty)

            // The same request again: the same 201s, nothing stored twice; another envelope: 409 for each.
            let again = try Self.results(try await client.json(.post, RelayPaths.fanOut, Self.request("fan-1", recipients)))
            #expect(again == results)
            let other = try Self.results(try await client.json(.post, RelayPaths.fanOut,
                                                               Self.request("fan-1", Array(recipients.prefix(2)), envelope: sealedSized([9]))))
            #expect(other.map(\.status) == [409, 409] && other.allSatisfy { $0.error == "conflict" })
            #expect(try await Self.sync(client, bob, token: bobToken).count == 1)
            // A single deposit with the fan-out's request id is its repeat.
            let single = try await client.deposit(to: bob, requestID: "fan-1", envelope: Self.envelope)
            #expect(single.status == .created)
            #expect(try JSON.decode(DepositResponse.self, single.body).messageID == results[1].messageID)
        }
    }

    @Test func aRequestThatIsWrongAsAWholeIsRefusedAndStoresNothing() async throws {
        let relay = try TestRelay()
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            _ = try await client.registerAndAuthenticate(bob, relay: relay)
            func post(_ request: FanOutRequest) async throws -> TestResponse { try await client.json(.post, RelayPaths.fanOut, request) }
            func expect(_ response: TestResponse, _ status: HTTPResponse.Status, _ code: String, mentioning words: String? = nil,
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
                #expect(response.status == status, sourceLocation: sourceLocation)
                let error = try JSON.decode(RelayErrorBody.self, response.body).error
                #expect(error.code == code, sourceLocation: sourceLocation)
                if let words { #expect(error.message.contains(words), "\(error.message)", sourceLocation: sourceLocation) }
            }
            try expect(try await post(Self.request("dup", [Self.to(alice), Self.to(bob), Self.to(alice)])), .unprocessableContent, "malformed",
                       mentioning: "recipients.2.mailbox appears twice")
            try expect(try await post(Self.request("none", [])), .unprocessableContent, "malformed", mentioning: "recipients is empty")
            let many = (0...RelayLimits.maxFanOutRecipients).map { index in Self.to([alice, bob][index % 2]) }
            try expect(try await post(Self.request("many", many)), .unprocessableContent, "malformed", mentioning: "at most 255")
            try expect(try await post(Self.request("short-key", [.init(mailbox: Base64Bytes([1, 2, 3]))])), .unprocessableContent, "malformed",
                       mentioning: "recipients.0.mailbox")
            try expect(try await post(Self.request("bad id!", [Self.to(alice)])), .unprocessableContent, "malformed", mentioning: "requestID")
            try expect(try await post(Self.request("small", [Self.to(alice)], envelope: [1, 2, 3])), .unprocessableContent, "malformed")
            try expect(try await post(Self.request("big", [Self.to(alice)], envelope: [UInt8](repeating: 1, count: RelayLimits.maxEnvelopeBytes + 1))),
                       .contentTooLarge, "too_large")
            try expect(try await post(Self.request("digest", [Self.to(alice)], digest: [UInt8](repeating: 0, count: 32))),
                       .badRequest, "digest_mismatch")
            try expect(try await post(Self.request("digest-len", [Self.to(alice)], digest: [1])), .unprocessableContent, "malformed")
            // The digest header, as a binary deposit's: checked against the envelope too.
            let withHeader = try await client.execute(uri: RelayPaths.fanOut, method: .post,
                                                      headers: [.contentType: "application/json",
                                                                HTTPField.Name(EnvelopeDigest.header)!: Data(repeating: 0, count: 32).base64EncodedString()],
                                                      body: JSON.body(Self.request("header", [Self.to(alice)])))
            try expect(withHeader, .badRequest, "digest_mismatch")
            let goodHeader = try await client.execute(uri: RelayPaths.fanOut, method: .post,
                                                      headers: [.contentType: "application/json",
                                                                HTTPField.Name(EnvelopeDigest.header)!: Data(EnvelopeDigest.of(Self.envelope)).base64EncodedString()],
                                                      body: JSON.body(Self.request("header-ok", [Self.to(alice)], digest: EnvelopeDigest.of(Self.envelope))))
            #expect(try Self.results(goodHeader).map(\.status) == [201])
            // Hostile JSON: wrong types, nulls, huge numbers, deep nesting, a body over the cap.
            for body in [#"{"requestID":"x","envelope":"AAAA","recipients":{"mailbox":"AAAA"}}"#,
                         #"{"requestID":"x","envelope":"AAAA","recipients":[null]}"#,
                         #"{"requestID":"x","envelope":"AAAA","recipients":[{"mailbox":1e999999}]}"#,
                         #"{"requestID":"x","envelope":"not base64!","recipients":[]}"#,
                         #"{"requestID":18446744073709551616,"envelope":"AAAA","recipients":[]}"#,
                         String(repeating: "[", count: 100_000),
                         "{}", ""] {
                let response = try await client.execute(uri: RelayPaths.fanOut, method: .post, headers: [.contentType: "application/json"],
                                                        body: ByteBuffer(string: body))
                try expect(response, .unprocessableContent, "malformed")
            }
            let missing = try await client.execute(uri: RelayPaths.fanOut, method: .post, headers: [.contentType: "application/json"],
                                                   body: ByteBuffer(string: #"{"requestID":"x","envelope":"AAAA","recipients":[{}]}"#))
            try expect(missing, .unprocessableContent, "malformed", mentioning: "recipients.0.mailbox")
            let huge = try await client.execute(uri: RelayPaths.fanOut, method: .post, headers: [.contentType: "application/json"],
                                                body: ByteBuffer(repeating: UInt8(ascii: " "), count: RelayLimits.maxFanOutBodyBytes + 1))
            try expect(huge, .contentTooLarge, "too_large")
            #expect(try await Self.sync(client, alice, token: token).count == 1, "only the one good request stored anything")
        }
    }

    /// Each first-contact recipient needs work bound to ITS mailbox; a
    /// credential recipient needs none. 428 comes per recipient, with the bits.
    @Test func firstContactsNeedWorkPerMailbox() async throws {
        let relay = try TestRelay { $0.rateLimits.firstContactWorkBits = 8 }
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob"), carol = try TestUser(seed: "carol")
        let credential = [UInt8](repeating: 0xA1, count: 32)
        try await relay.application().test(.router) { client in
            let aliceToken = try await client.registerAndAuthenticate(alice, relay: relay)
            let bobToken = try await client.registerAndAuthenticate(bob, relay: relay)
            let carolToken = try await client.registerAndAuthenticate(carol, relay: relay)
            _ = try await client.json(.post, RelayPaths.mailboxCredentials(alice.identity),
                                      CredentialsRequest(add: [Base64Bytes(DeliveryCredential.hash(credential))]), token: aliceToken)
            let first = try Self.results(try await client.json(.post, RelayPaths.fanOut,
                                                               Self.request("w", [Self.to(alice, credential: credential), Self.to(bob), Self.to(carol)])))
            #expect(first[0].status == 201)
            for result in first.dropFirst() {
                #expect(result.status == 428 && result.error == "work_required" && result.workBits == 8 && result.messageID == nil)
            }
            func work(_ user: TestUser) -> [UInt8] {
                FirstContactWork.solve(mailbox: user.identity, requestID: "w", envelope: Self.envelope, bits: 8)
            }
            // Bob's work does not open carol's mailbox (it binds the mailbox).
            let second = try Self.results(try await client.json(.post, RelayPaths.fanOut,
                                                                Self.request("w", [Self.to(bob, work: work(bob)), Self.to(carol, work: work(bob))])))
            #expect(second.map(\.status) == [201, 428])
            let third = try Self.results(try await client.json(.post, RelayPaths.fanOut, Self.request("w", [Self.to(carol, work: work(carol))])))
            #expect(third.map(\.status) == [201])
            for (user, token) in [(alice, aliceToken), (bob, bobToken), (carol, carolToken)] {
                #expect(try await Self.sync(client, user, token: token).count == 1)
            }
        }
    }

    @Test func theRateLimiterChargesACostAtOnceOrNothing() {
        let limiter = RateLimiter(rule: .init(burst: 5, perSecond: 1))
        #expect(limiter.acquire("a", cost: 4, nowMilliseconds: 0) == nil)
        // One token left: a cost of two is refused (2 − 1 = 1 s to wait) and takes nothing.
        #expect(limiter.acquire("a", cost: 2, nowMilliseconds: 0) == 1)
        #expect(limiter.acquire("a", nowMilliseconds: 0) == nil)
        #expect(limiter.acquire("a", nowMilliseconds: 0) == 1)
        // A cost above the burst is charged as the whole burst, not refused forever.
        #expect(limiter.acquire("b", cost: 1_000, nowMilliseconds: 0) == nil)
        #expect(limiter.acquire("b", nowMilliseconds: 0) != nil)
        #expect(FanOutRoute.rateLimitCost(recipients: 1) == 1 && FanOutRoute.rateLimitCost(recipients: 10) == 1
                && FanOutRoute.rateLimitCost(recipients: 11) == 2 && FanOutRoute.rateLimitCost(recipients: 255) == 26)
    }

    /// `max(1, ceil(n/10))` tokens of the per-address bucket: 40 recipients
    /// take 4; with one left, an 11-recipient fan-out (2) is refused whole.
    @Test func theRateLimitIsChargedPerTenRecipients() async throws {
        let relay = try TestRelay {
            $0.rateLimits.perAddress = .init(burst: 5, perSecond: 1e-6)
            // One first contact per target: the per-address bucket over all targets holds ten times that.
            $0.rateLimits.firstContactPerAddress = .init(burst: 1, perSecond: 1e-6)
        }
        let members = try (0..<40).map { try TestUser(seed: "member-\($0)") }
        // Registered straight in the storage, so that the bucket holds its whole burst of 5.
        for member in members { try await relay.server.core.storage.identities.registerForTest(member.identity) }
        try await relay.application().test(.router) { client in
            let wide = try Self.results(try await client.json(.post, RelayPaths.fanOut, Self.request("wide", members.map { Self.to($0) })))
            // Every recipient is a first contact: the per-address first-contact bucket (10) admits ten, the rest are 429 each.
            #expect(wide.count == 40 && wide.prefix(10).allSatisfy { $0.status == 201 })
            #expect(wide.dropFirst(10).allSatisfy { $0.status == 429 && $0.error == "rate_limited" && ($0.retryAfter ?? 0) >= 1 })
            let refused = try await client.json(.post, RelayPaths.fanOut, Self.request("next", members.prefix(11).map { Self.to($0) }))
            #expect(refused.status == .tooManyRequests && JSON.errorCode(refused) == "rate_limited")
            // The token it took before reading the body is gone; the last one is left for nothing more.
            let last = try await client.json(.post, RelayPaths.fanOut, Self.request("last", [Self.to(members[0])]))
            #expect(last.status == .tooManyRequests)
            let inventory = try await relay.server.core.storage.inventory.inventory()
            #expect(inventory.messages.count == 10, "the refused fan-out stored nothing")
        }
    }

    /// After the commit, each stored envelope is pushed to its recipient's
    /// sockets with its previous id, exactly as a single deposit's; a repeat
    /// and a refused recipient push nothing.
    @Test func storedEnvelopesArePushedToEachRecipientsSockets() async throws {
        let relay = try TestRelay()
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob"), carol = try TestUser(seed: "carol")
        try await relay.application().test(.router) { client in
            for user in [alice, bob, carol] { _ = try await client.registerAndAuthenticate(user, relay: relay) }
            let hub = relay.server.core.hub
            let aliceSocket = hub.register(identity: alice.identity), bobSocket = hub.register(identity: bob.identity)
            let earlier = try await client.deposit(to: bob, requestID: "before", envelope: sealedSized([1]))
            let earlierID = try JSON.decode(DepositResponse.self, earlier.body).messageID
            var bobFrames = bobSocket.frames.makeAsyncIterator(), aliceFrames = aliceSocket.frames.makeAsyncIterator()
            _ = await bobFrames.next()
            let results = try Self.results(try await client.json(.post, RelayPaths.fanOut,
                                                                 Self.request("push", [Self.to(alice), Self.to(bob), Self.to(carol, credential: [7])])))
            #expect(results.map(\.status) == [201, 201, 403])
            func pushed(_ frame: String?) throws -> MailboxMessage {
                guard let frame, case let .message(message) = try JSONDecoder().decode(SocketServerEvent.self, from: Data(frame.utf8)) else {
                    throw TestFailure("no message frame: \(String(describing: frame))")
                }
                return message
            }
            let toAlice = try pushed(await aliceFrames.next()), toBob = try pushed(await bobFrames.next())
            #expect(toAlice.messageID == results[0].messageID && toAlice.previousMessageID == 0 && toAlice.envelope.bytes == Self.envelope)
            #expect(toBob.messageID == results[1].messageID && toBob.previousMessageID == earlierID && toBob.isIntact)
            // A repeat pushes nothing: the next frame bob sees is the next deposit's.
            _ = try await client.json(.post, RelayPaths.fanOut, Self.request("push", [Self.to(bob)]))
            let next = try await client.deposit(to: bob, requestID: "after", envelope: sealedSized([2]))
            #expect(try pushed(await bobFrames.next()).messageID == JSON.decode(DepositResponse.self, next.body).messageID)
            hub.unregister(identity: alice.identity, id: aliceSocket.id)
            hub.unregister(identity: bob.identity, id: bobSocket.id)
        }
    }
}
