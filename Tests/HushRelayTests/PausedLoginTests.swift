import Foundation
import HummingbirdTesting
import HushCrypto
import HushRelay
import HushRelayAPI
import HushRelayClient
import Synchronization
import Testing

/// A client that pauses between the challenge and its answer (a laptop asleep,
/// a process starved of CPU) finds the challenge expired: the relay refuses
/// it as it refuses a forged signature. The client answers such a refusal
/// once more with a new challenge; a second refusal stays final.
@Suite struct PausedLoginTests {
    /// The relay's login challenges, with the first `pauses` answers arriving
    /// after their challenge expired: the relay's own expiry check sees a
    /// `now` past the challenge's lifetime.
    final class PausingAuthStore: AuthStore {
        let inner: any AuthStore
        let pauses: Int
        /// Whether each answer the relay checked was fresh, in order.
        let answers = Mutex<[Bool]>([])

        init(_ inner: any AuthStore, pauses: Int) {
            self.inner = inner
            self.pauses = pauses
        }

        func storeChallenge(nonce: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
            try await inner.storeChallenge(nonce: nonce, identity: identity, expiresAt: expiresAt)
        }

        func consumeChallenge(nonce: [UInt8], identity: [UInt8], now: Int64) async throws -> Bool {
            let paused = answers.withLock { $0.count } < pauses
            let late = now + (RelayLimits.challengeLifetimeSeconds + 1) * 1000
            let fresh = try await inner.consumeChallenge(nonce: nonce, identity: identity, now: paused ? late : now)
            answers.withLock { $0.append(fresh) }
            return fresh
        }

        func storeToken(hash: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
            try await inner.storeToken(hash: hash, identity: identity, expiresAt: expiresAt)
        }

        func tokenIdentity(hash: [UInt8], now: Int64) async throws -> TokenGrant? {
            try await inner.tokenIdentity(hash: hash, now: now)
        }
    }

    /// Registers alice on a live relay whose first `pauses` login answers
    /// arrive late, then logs her in with the real client.
    private static func login(pauses: Int) async throws -> (Result<TokenResponse, RelayClientError>, [Bool]) {
        var storage = RelayStorage(InMemoryRelayStorage())
        let auth = PausingAuthStore(storage.auth, pauses: pauses)
        storage.auth = auth
        let relay = try TestRelay(storage: storage)
        let alice = try TestUser(seed: "alice")
        let outcome = Mutex<Result<TokenResponse, RelayClientError>?>(nil)
        try await relay.application().test(.live) { client in
            let relayClient = RelayClient(baseURL: "http://127.0.0.1:\(client.port!)")
            try await relayClient.register(identity: alice.key, signedPrekey: alice.signedPrekey, lastResortKEMPrekey: alice.lastResortKEM,
                                           oneTimePrekeys: [], timestamp: relay.now)
            let result: Result<TokenResponse, RelayClientError>
            do throws(RelayClientError) {
                result = .success(try await relayClient.authenticate(identity: alice.key))
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            if case .success = result {
                // The token the second round got is one the relay honours.
                #expect(try await relayClient.prekeyCount().oneTimeX25519 == 0)
            }
        }
        return (try #require(outcome.withLock { $0 }), auth.answers.withLock { $0 })
    }

    @Test func anAnswerToAnExpiredChallengeIsFollowedByANewChallenge() async throws {
        let (result, answers) = try await Self.login(pauses: 1)
        #expect(answers == [false, true], "one late answer refused, then one fresh answer accepted")
        guard case let .success(token) = result else {
            Issue.record("the login failed after one paused answer: \(result)")
            return
        }
        #expect(!token.token.isEmpty)
    }

    @Test func aSecondRefusalIsFinal() async throws {
        let (result, answers) = try await Self.login(pauses: 10)
        #expect(answers == [false, false], "exactly two rounds, not a loop")
        guard case let .failure(.http(status, code, _, _)) = result else {
            Issue.record("expected the relay's refusal, got \(result)")
            return
        }
        #expect(status == 401 && code == RelayErrorCode.authenticationFailed.rawValue)
    }
}
