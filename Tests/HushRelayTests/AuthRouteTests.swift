import HummingbirdTesting
import HushCrypto
import HushRelay
import HushRelayAPI
import Testing

@Suite struct AuthRouteTests {
    @Test(arguments: StorageDriver.allCases)
    func challengeForUnknownIdentityIs404(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let stranger = try TestUser(seed: "stranger")
        try await relay.application().test(.router) { client in
            let response = try await client.json(.post, RelayPaths.challenge, ChallengeRequest(identityKey: Base64Bytes(stranger.identity)))
            #expect(response.status == .notFound)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func replayedChallengeIsRefused(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            _ = try await client.json(.post, RelayPaths.identities, alice.registration(at: relay.now))
            let challenge = try JSON.decode(ChallengeResponse.self,
                                            await client.json(.post, RelayPaths.challenge, ChallengeRequest(identityKey: Base64Bytes(alice.identity))).body)
            let answer = TokenRequest(identityKey: Base64Bytes(alice.identity), nonce: challenge.nonce,
                                      signature: Base64Bytes(AuthChallenge.sign(nonce: challenge.nonce.bytes, origin: relay.origin, with: alice.key)),
                                      origin: relay.origin.description)
            #expect(try await client.json(.post, RelayPaths.token, answer).status == .ok)
            let replay = try await client.json(.post, RelayPaths.token, answer)
            #expect(replay.status == .unauthorized)
            #expect(JSON.errorCode(replay) == "authentication_failed")
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func expiredChallengeIsRefused(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            _ = try await client.json(.post, RelayPaths.identities, alice.registration(at: relay.now))
            let challenge = try JSON.decode(ChallengeResponse.self,
                                            await client.json(.post, RelayPaths.challenge, ChallengeRequest(identityKey: Base64Bytes(alice.identity))).body)
            relay.clock.advance(seconds: RelayLimits.challengeLifetimeSeconds + 1)
            let answer = TokenRequest(identityKey: Base64Bytes(alice.identity), nonce: challenge.nonce,
                                      signature: Base64Bytes(AuthChallenge.sign(nonce: challenge.nonce.bytes, origin: relay.origin, with: alice.key)),
                                      origin: relay.origin.description)
            #expect(try await client.json(.post, RelayPaths.token, answer).status == .unauthorized)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func challengeSignedByAnotherKeyIsRefused(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice"), mallory = try TestUser(seed: "mallory")
        try await relay.application().test(.router) { client in
            _ = try await client.json(.post, RelayPaths.identities, alice.registration(at: relay.now))
            let challenge = try JSON.decode(ChallengeResponse.self,
                                            await client.json(.post, RelayPaths.challenge, ChallengeRequest(identityKey: Base64Bytes(alice.identity))).body)
            let forged = TokenRequest(identityKey: Base64Bytes(alice.identity), nonce: challenge.nonce,
                                      signature: Base64Bytes(AuthChallenge.sign(nonce: challenge.nonce.bytes, origin: relay.origin, with: mallory.key)),
                                      origin: relay.origin.description)
            #expect(try await client.json(.post, RelayPaths.token, forged).status == .unauthorized)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func expiredAndForgedTokensAreRefused(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            #expect(try await client.get(RelayPaths.prekeyCount, token: token).status == .ok)
            let forged = try await client.get(RelayPaths.prekeyCount, token: String(token.reversed()))
            #expect(forged.status == .unauthorized)
            #expect(JSON.errorCode(forged) == "unauthorized")
            relay.clock.advance(seconds: RelayLimits.tokenLifetimeSeconds + 1)
            #expect(try await client.get(RelayPaths.prekeyCount, token: token).status == .unauthorized)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func socketPathWithoutUpgradeNeedsToken(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            #expect(try await client.get(RelayPaths.socket).status == .unauthorized)
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            #expect(try await client.get(RelayPaths.socket, token: token).status == .badRequest)
        }
    }
}
