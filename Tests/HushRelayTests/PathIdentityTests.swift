import HushCrypto
import HummingbirdTesting
import HushRelay
import HushRelayAPI
import Testing

/// An identity in a path is 64 lower-case hex digits (RELAY-API, the OpenAPI
/// pattern): one spelling per key, anything else 400 before any lookup.
@Suite struct PathIdentityTests {
    @Test func upperCaseHexIsRefusedLikeAnyOtherMalformedIdentity() async throws {
        let relay = try TestRelay()
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            _ = try await client.registerAndAuthenticate(alice, relay: relay)
            let lower = Hex.encode(alice.identity)
            #expect(try await client.get("/v1/identities/\(lower)/bundle").status == .ok)
            let upper = try await client.get("/v1/identities/\(lower.uppercased())/bundle")
            #expect(upper.status == .badRequest)
            #expect(String(buffer: upper.body).contains("lower-case hex"))
        }
    }
}
