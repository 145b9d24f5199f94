import Foundation
import HummingbirdTesting
import HushCrypto
import HushRelay
import HushRelayAPI
import HushRelayClient
import HushTesting
import NIOCore
import Testing

/// Over a real loopback port, with the real HTTP and WebSocket clients.
@Suite struct LiveRelayTests {
    /// Runs `body` against a live relay with registered, authenticated clients for alice and bob.
    static func withLiveRelay(configure: (inout RelayConfiguration) -> Void = { _ in },
                              _ body: @escaping @Sendable (TestRelay, RelayClient, RelayClient, TestUser, TestUser) async throws -> Void) async throws {
        let relay = try TestRelay(configure: configure)
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob")
        try await relay.application().test(.live) { client in
            let base = "http://127.0.0.1:\(client.port!)"
            let aliceClient = RelayClient(baseURL: base), bobClient = RelayClient(baseURL: base)
            for (user, relayClient) in [(alice, aliceClient), (bob, bobClient)] {
                try await relayClient.register(identity: user.key, signedPrekey: user.signedPrekey, lastResortKEMPrekey: user.lastResortKEM,
                                               oneTimePrekeys: user.oneTime(.oneTimeX25519, ids: 1...2), timestamp: relay.now)
                try await relayClient.authenticate(identity: user.key)
            }
            try await body(relay, aliceClient, bobClient, alice, bob)
        }
    }

    /// The next event, or nil after `seconds` (a bound, not a timing assertion).
    static func nextEvent(_ socket: RelaySocket, within seconds: Double = 30) async -> RelaySocketEvent? {
        await within(seconds) {
            var iterator = socket.events.makeAsyncIterator()
            return await iterator.next()
        }
    }

    @Test func pushOnDeposit() async throws {
        try await Self.withLiveRelay { _, aliceClient, bobClient, alice, _ in
            let socket = try await aliceClient.connectSocket()
            let receipt = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([7, 7, 7]), requestID: "push-1", credential: nil)
            let event = await Self.nextEvent(socket)
            guard case let .message(message) = event else {
                Issue.record("expected a pushed message, got \(String(describing: event))")
                return
            }
            #expect(message.messageID == receipt.messageID)
            #expect(message.envelope.bytes == sealedSized([7, 7, 7]))
            // The mailbox held nothing before: previous id 0. The next push names the first.
            #expect(message.previousMessageID == 0)
            let second = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([8]), requestID: "push-2", credential: nil)
            guard case let .message(next) = await Self.nextEvent(socket) else {
                Issue.record("expected a second pushed message")
                return
            }
            #expect(next.messageID == second.messageID && next.previousMessageID == receipt.messageID)
            await socket.close()
        }
    }

    /// An `ack` frame deletes from the socket's own mailbox, as `POST …/ack`
    /// does, without an answer; too many ids, or an unknown frame type, is a
    /// refused frame.
    @Test func ackOverTheSocketDeletesFromItsOwnMailboxOnly() async throws {
        try await Self.withLiveRelay { _, aliceClient, bobClient, alice, bob in
            let first = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([1]), requestID: "ack-1", credential: nil)
            let second = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([2]), requestID: "ack-2", credential: nil)
            let toBob = try await aliceClient.deposit(recipient: bob.identity, envelope: sealedSized([3]), requestID: "ack-3", credential: nil)
            let socket = try await aliceClient.connectSocket()
            // The first id, and bob's envelope's id: only alice's own is deleted.
            try await socket.acknowledge([first.messageID, toBob.messageID])
            // The frame has no answer: poll (a bound, not a timing assertion).
            let remaining = await within(30) {
                var ids: [UInt64] = []
                while !Task.isCancelled {
                    ids = (try? await aliceClient.sync().messages.map(\.messageID)) ?? []
                    if ids == [second.messageID] { break }
                    try? await Task.sleep(for: .milliseconds(50))
                }
                return ids
            }
            #expect(remaining == [second.messageID])
            #expect(try await bobClient.sync().messages.map(\.messageID) == [toBob.messageID])
            try await socket.acknowledge([UInt64](repeating: 1, count: RelayLimits.maxAckIDs + 1))
            #expect(await Self.nextEvent(socket) == .error(code: "malformed", message: RelayError.malformed("more than \(RelayLimits.maxAckIDs) ids").clientMessage))
            await socket.close()
        }
    }

    @Test func ephemeralReachesConnectedContactOnlyAndIsNeverStored() async throws {
        try await Self.withLiveRelay { _, aliceClient, bobClient, alice, _ in
            let credential = DeterministicRandom(seed: "alice-gives-bob").bytes(32)
            try await aliceClient.updateCredentials(add: [credential])
            let aliceSocket = try await aliceClient.connectSocket()
            let bobSocket = try await bobClient.connectSocket()
            try await bobSocket.sendEphemeral(to: alice.identity, credential: credential, envelope: [1, 2])
            #expect(await Self.nextEvent(aliceSocket) == .ephemeral([1, 2]))
            try await bobSocket.sendEphemeral(to: alice.identity, credential: [UInt8](repeating: 9, count: 32), envelope: [3])
            #expect(await Self.nextEvent(bobSocket) == .error(code: "invalid_credential",
                                                              message: RelayError.invalidCredential.clientMessage))
            #expect(try await aliceClient.sync().messages.isEmpty)
            await aliceSocket.close()
            await bobSocket.close()
        }
    }

    @Test func idempotentRedepositAndAckThenGone() async throws {
        try await Self.withLiveRelay { _, aliceClient, bobClient, alice, _ in
            let first = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([1]), requestID: "once", credential: nil)
            let again = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([1]), requestID: "once", credential: nil)
            #expect(first == again)
            let synced = try await aliceClient.sync()
            #expect(synced.messages.map(\.messageID) == [first.messageID])
            #expect(try await aliceClient.ack(ids: [first.messageID]) == 1)
            #expect(try await aliceClient.sync().messages.isEmpty)
        }
    }

    @Test func otherMailboxAndForgedTokenAreRefused() async throws {
        try await Self.withLiveRelay { _, aliceClient, bobClient, alice, bob in
            do {
                _ = try await bobClient.sync(mailbox: alice.identity)
                Issue.record("reading another mailbox succeeded")
            } catch let error as RelayClientError {
                #expect(error.status == 403 && error.code == "forbidden" && !error.isRetryable)
            }
            let forger = RelayClient(baseURL: aliceClient.baseURL)
            forger.useToken("forged-token", identity: bob.identity, expiresAt: .max)
            do {
                _ = try await forger.sync()
                Issue.record("a forged token was accepted")
            } catch let error as RelayClientError {
                #expect(error.status == 401 && error.needsReauthentication)
            }
            do {
                _ = try await forger.connectSocket()
                Issue.record("a forged token opened a socket")
            } catch let error as RelayClientError {
                #expect(error == .socketRefused)
            }
        }
    }

    @Test func expiredTokenIsRefusedOverTheWire() async throws {
        try await Self.withLiveRelay { relay, aliceClient, _, _, _ in
            relay.clock.advance(seconds: RelayLimits.tokenLifetimeSeconds + 1)
            do {
                _ = try await aliceClient.sync()
                Issue.record("an expired token was accepted")
            } catch let error as RelayClientError {
                #expect(error.status == 401)
            }
        }
    }

    @Test func oversizedAndMalformedBodiesOverTheWire() async throws {
        try await Self.withLiveRelay { _, aliceClient, bobClient, alice, _ in
            do {
                _ = try await bobClient.deposit(recipient: alice.identity, envelope: [UInt8](repeating: 0, count: RelayLimits.maxEnvelopeBytes + 1),
                                                requestID: "big", credential: nil)
                Issue.record("an oversized envelope was accepted")
            } catch let error as RelayClientError {
                #expect(error.status == 413)
            }
            let huge = ByteBuffer(repeating: UInt8(ascii: "x"), count: RelayLimits.maxJSONBodyBytes + 10)
            let raw = try await bobClient.send(.POST, RelayPaths.mailboxMessages(alice.identity), body: huge, contentType: "application/json")
            #expect(raw.status == 413)
            let malformed = try await bobClient.send(.POST, RelayPaths.mailboxMessages(alice.identity),
                                                     body: ByteBuffer(string: #"{"requestID": 5}"#), contentType: "application/json")
            #expect(malformed.status == 422)
            #expect(try JSONDecoder().decode(RelayErrorBody.self, from: Data(malformed.body)).error.code == "malformed")
            _ = aliceClient
        }
    }

    @Test func quotaAndRateLimitOverTheWire() async throws {
        try await Self.withLiveRelay(configure: {
            $0.mailboxQuotaCount = 2
            $0.rateLimits.firstContactPerAddress = .init(burst: 3, perSecond: 1.0 / 600)
        }) { _, _, bobClient, alice, _ in
            _ = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([1]), requestID: "a", credential: nil)
            _ = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([1]), requestID: "b", credential: nil)
            do {
                _ = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([1]), requestID: "c", credential: nil)
                Issue.record("deposit over quota accepted")
            } catch let error as RelayClientError {
                #expect(error.status == 413 && error.code == "quota_exceeded")
            }
            do {
                _ = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([1]), requestID: "d", credential: nil)
                Issue.record("first contact beyond the limit accepted")
            } catch let error as RelayClientError {
                #expect(error.status == 429 && error.isRetryable && (error.retryAfterSeconds ?? 0) > 0)
            }
        }
    }

    /// A login refused with a short `Retry-After` (the relay's allowance per
    /// address, used up by a burst of processes on one machine) is waited out
    /// and sent again; before, the command failed with "retry after 1 s".
    @Test func aShortRateLimitIsWaitedOutInPlace() async throws {
        let relay = try TestRelay(configure: { $0.rateLimits.authPerAddress = .init(burst: 3, perSecond: 1) })
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.live) { client in
            let relayClient = RelayClient(baseURL: "http://127.0.0.1:\(client.port!)")
            try await relayClient.register(identity: alice.key, signedPrekey: alice.signedPrekey, lastResortKEMPrekey: alice.lastResortKEM,
                                           oneTimePrekeys: [], timestamp: relay.now)
            try await relayClient.authenticate(identity: alice.key)   // challenge and login: the allowance is spent
            let refused = try await RelayClient(baseURL: "http://127.0.0.1:\(client.port!)")
                .send(.POST, RelayPaths.challenge, body: ByteBuffer(bytes: Array(#"{"identityKey":"x"}"#.utf8)),
                      contentType: "application/json")
            // Waited out three times (three seconds), then returned: nothing refills while the relay's clock stands still.
            #expect(refused.status == 429 && refused.retryAfter == "1", "\(refused.status)")
            // The relay's clock moves on while the client waits its second.
            let clock = relay.clock
            let tick = Task { try await Task.sleep(for: .milliseconds(300)); clock.advance(seconds: 5) }
            try await relayClient.authenticate(identity: alice.key)
            _ = try await tick.value
        }
    }

    @Test func bundleAndBlobThroughTheClient() async throws {
        try await Self.withLiveRelay { _, aliceClient, bobClient, alice, _ in
            let bundle = try await bobClient.fetchBundle(for: alice.identity)
            #expect(bundle.oneTimePrekey?.id == 1)
            #expect(try await aliceClient.prekeyCount().oneTimeX25519 == 1)
            try await aliceClient.uploadPrekeys(alice.oneTime(.oneTimeKEM, ids: 30...31))
            #expect(try await aliceClient.prekeyCount().oneTimeKEM == 2)
            let blob = try await bobClient.uploadBlob([UInt8](repeating: 5, count: 200_000))
            #expect(try await aliceClient.downloadBlob(id: blob.blobID) == [UInt8](repeating: 5, count: 200_000))
        }
    }
}
