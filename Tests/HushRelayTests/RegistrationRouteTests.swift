import HummingbirdTesting
import HushCrypto
import HushProtocol
@testable import HushRelay
import HushRelayAPI
import NIOCore
import Testing

@Suite struct RegistrationRouteTests {
    @Test(arguments: StorageDriver.allCases)
    func healthAnswersOK(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        try await relay.application().test(.router) { client in
            let response = try await client.get(RelayPaths.health)
            #expect(response.status == .ok)
            #expect(try JSON.decode(HealthResponse.self, response.body).status == "ok")
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func registrationStoresPrekeysAndRefusesReplay(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        let oneTime = try alice.oneTime(.oneTimeX25519, ids: 10...12) + alice.oneTime(.oneTimeKEM, ids: 20...21)
        try await relay.application().test(.router) { client in
            let request = alice.registration(at: relay.now, oneTime: oneTime)
            let first = try await client.json(.post, RelayPaths.identities, request)
            #expect(first.status == .created)
            #expect(try JSON.decode(RegisterResponse.self, first.body) == RegisterResponse(oneTimeX25519: 3, oneTimeKEM: 2))
            // The same signed registration again: stale, so consumed prekeys cannot come back.
            let replay = try await client.json(.post, RelayPaths.identities, request)
            #expect(replay.status == .conflict)
            #expect(JSON.errorCode(replay) == "stale_registration")
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func registrationWithForgedProofIsRefused(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice"), mallory = try TestUser(seed: "mallory")
        try await relay.application().test(.router) { client in
            var request = alice.registration(at: relay.now)
            request.proof = Base64Bytes(mallory.key.signature(for: RegistrationProof.message(for: request)))
            let response = try await client.json(.post, RelayPaths.identities, request)
            #expect(response.status == .unprocessableContent)
            #expect(JSON.errorCode(response) == "invalid_signature")
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func registrationWithPrekeySignedByAnotherKeyIsRefused(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice"), mallory = try TestUser(seed: "mallory")
        try await relay.application().test(.router) { client in
            // Mallory's prekey inside Alice's otherwise valid, freshly proven registration.
            let request = RegisterRequest.signed(identity: alice.key, signedPrekey: mallory.signedPrekey,
                                                 lastResortKEMPrekey: alice.lastResortKEM, oneTimePrekeys: [], timestamp: relay.now)
            let response = try await client.json(.post, RelayPaths.identities, request)
            #expect(response.status == .unprocessableContent)
            #expect(JSON.errorCode(response) == "invalid_signature")
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func malformedRegistrationsAre422(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let notJSON = try await client.execute(uri: RelayPaths.identities, method: .post, body: ByteBuffer(string: "{not json"))
            #expect(notJSON.status == .unprocessableContent)
            #expect(JSON.errorCode(notJSON) == "malformed")
            let missing = try await client.execute(uri: RelayPaths.identities, method: .post, body: ByteBuffer(string: #"{"identityKey":"AAAA"}"#))
            #expect(missing.status == .unprocessableContent)
            let farFuture = try await client.json(.post, RelayPaths.identities, alice.registration(at: relay.now + 3_600_000))
            #expect(farFuture.status == .unprocessableContent)
            let tooMany = try await client.json(.post, RelayPaths.identities,
                                                alice.registration(at: relay.now, oneTime: alice.oneTime(.oneTimeX25519, ids: 1...101)))
            #expect(tooMany.status == .unprocessableContent)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func oversizedRegistrationBodyIs413(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        try await relay.application().test(.router) { client in
            let body = ByteBuffer(repeating: UInt8(ascii: " "), count: RelayLimits.maxRegistrationBodyBytes + 1)
            let response = try await client.execute(uri: RelayPaths.identities, method: .post, body: body)
            #expect(response.status == .contentTooLarge)
            #expect(JSON.errorCode(response) == "too_large")
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func bundleConsumesOneTimePrekeysThenFallsBack(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        let oneTime = try alice.oneTime(.oneTimeX25519, ids: 10...10) + alice.oneTime(.oneTimeKEM, ids: 20...20)
        try await relay.application().test(.router) { client in
            _ = try await client.json(.post, RelayPaths.identities, alice.registration(at: relay.now, oneTime: oneTime))
            let first = try JSON.decode(PrekeyBundleDTO.self, await client.get(RelayPaths.bundle(alice.identity)).body).bundle()
            try first.verify()
            #expect(first.oneTimePrekey?.id == 10)
            #expect(first.kemPrekey.kind == .oneTimeKEM && first.kemPrekey.id == 20)
            let second = try JSON.decode(PrekeyBundleDTO.self, await client.get(RelayPaths.bundle(alice.identity)).body).bundle()
            try second.verify()
            #expect(second.oneTimePrekey == nil)
            #expect(second.kemPrekey == alice.lastResortKEM)
            #expect(second.signedPrekey == alice.signedPrekey)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func beyondThePerTargetBudgetBundlesComeWithoutOneTimePrekeysSoNeitherDrainNorLockOut(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver) { $0.rateLimits.bundlesPerIdentity = .init(burst: 3, perSecond: 1.0 / 3600) }
        let alice = try TestUser(seed: "alice")
        let bob = try TestUser(seed: "bob")
        let oneTime = try alice.oneTime(.oneTimeX25519, ids: 1...10) + alice.oneTime(.oneTimeKEM, ids: 11...20)
        try await relay.application().test(.router) { client in
            _ = try await client.json(.post, RelayPaths.identities, alice.registration(at: relay.now, oneTime: oneTime))
            _ = try await client.json(.post, RelayPaths.identities, bob.registration(at: relay.now, oneTime: try bob.oneTime(.oneTimeX25519, ids: 1...2)))
            for _ in 0..<3 {
                let bundle = try JSON.decode(PrekeyBundleDTO.self, try await client.get(RelayPaths.bundle(alice.identity)).body)
                #expect(bundle.oneTimePrekey != nil)
            }
            for _ in 0..<20 {
                let beyond = try await client.get(RelayPaths.bundle(alice.identity))
                #expect(beyond.status == .ok, "never refused for the budget")
                let bundle = try JSON.decode(PrekeyBundleDTO.self, beyond.body)
                #expect(bundle.oneTimePrekey == nil)
                #expect(bundle.kemPrekey == SignedPrekeyDTO(alice.lastResortKEM))
                #expect(bundle.signedPrekey == SignedPrekeyDTO(alice.signedPrekey))
            }
            // Seven of each kind are still there for fetches within a later budget.
            let token = try await client.authenticate(alice, origin: relay.origin)
            let counts = try JSON.decode(PrekeyCountResponse.self, try await client.get(RelayPaths.prekeyCount, token: token).body)
            #expect(counts == PrekeyCountResponse(oneTimeX25519: 7, oneTimeKEM: 7, registeredAt: relay.now,
                                                  signedPrekey: SignedPrekeyDTO(alice.signedPrekey)))
            // Another identity's budget is its own.
            #expect(try JSON.decode(PrekeyBundleDTO.self, try await client.get(RelayPaths.bundle(bob.identity)).body).oneTimePrekey != nil)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func bundleOfUnknownOrInvalidIdentity(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let stranger = try TestUser(seed: "stranger")
        try await relay.application().test(.router) { client in
            #expect(try await client.get(RelayPaths.bundle(stranger.identity)).status == .notFound)
            let bad = try await client.get("/v1/identities/not-hex/bundle")
            #expect(bad.status == .badRequest)
            #expect(JSON.errorCode(bad) == "bad_request")
        }
    }

    /// The count answer names the registration held (docs/PROTOCOL.md §19.4,
    /// "One home per key"): its timestamp and signed prekey. A later one (a
    /// restored home's, with a signed prekey of its own) takes both places
    /// and closes the key's sockets, so a home listening there asks again.
    @Test(arguments: StorageDriver.allCases)
    func theCountNamesTheRegistrationHeldAndANewOneClosesTheKeysSockets(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice"), bob = try TestUser(seed: "bob")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            _ = try await client.registerAndAuthenticate(bob, relay: relay)
            let first = try JSON.decode(PrekeyCountResponse.self, try await client.get(RelayPaths.prekeyCount, token: token).body)
            #expect(first.registeredAt == relay.now)
            #expect(first.signedPrekey == SignedPrekeyDTO(alice.signedPrekey))
            let hub = relay.server.core.hub
            let aliceSocket = hub.register(identity: alice.identity), bobSocket = hub.register(identity: bob.identity)
            let renewed = try SignedPrekey.sign(kind: .signedX25519, id: 2, publicKey: Array(repeating: 9, count: 32), with: alice.key)
            let restored = RegisterRequest.signed(identity: alice.key, signedPrekey: renewed, lastResortKEMPrekey: alice.lastResortKEM,
                                                  oneTimePrekeys: [], timestamp: relay.now + 1)
            #expect(try await client.json(.post, RelayPaths.identities, restored).status == .created)
            var aliceFrames = aliceSocket.frames.makeAsyncIterator()
            #expect(await aliceFrames.next() == nil, "alice's socket was closed")
            #expect(hub.isConnected(bob.identity), "another key's socket stays")
            _ = bobSocket
            let second = try JSON.decode(PrekeyCountResponse.self, try await client.get(RelayPaths.prekeyCount, token: token).body)
            #expect(second.registeredAt == relay.now + 1)
            #expect(second.signedPrekey == SignedPrekeyDTO(renewed))
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func prekeyUploadNeedsTokenAndCountsRemaining(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let upload = UploadPrekeysRequest(oneTimePrekeys: try (alice.oneTime(.oneTimeX25519, ids: 1...4) + alice.oneTime(.oneTimeKEM, ids: 5...6))
                .map(SignedPrekeyDTO.init))
            #expect(try await client.json(.post, RelayPaths.prekeys, upload).status == .unauthorized)
            let uploaded = try await client.json(.post, RelayPaths.prekeys, upload, token: token)
            #expect(uploaded.status == .ok)
            let counts = try JSON.decode(PrekeyCountResponse.self, await client.get(RelayPaths.prekeyCount, token: token).body)
            #expect(counts == PrekeyCountResponse(oneTimeX25519: 4, oneTimeKEM: 2, registeredAt: relay.now,
                                                  signedPrekey: SignedPrekeyDTO(alice.signedPrekey)))
            // A signed (not one-time) prekey is not accepted as a one-time one.
            let wrongKind = UploadPrekeysRequest(oneTimePrekeys: [SignedPrekeyDTO(alice.signedPrekey)])
            #expect(try await client.json(.post, RelayPaths.prekeys, wrongKind, token: token).status == .unprocessableContent)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func unknownRouteAnswersJSON404(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        try await relay.application().test(.router) { client in
            let response = try await client.get("/v1/nothing-here")
            #expect(response.status == .notFound)
            #expect(JSON.errorCode(response) == "not_found")
        }
    }
}
