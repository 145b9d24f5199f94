import Foundation
import HummingbirdTesting
import HushCrypto
import HushRelay
import HushRelayAPI
import Testing

/// A login signature names the relay the client meant (`AuthChallenge`): a
/// relay that passes on another relay's challenge gets a signature that
/// relay refuses, and the old unbound form is refused with what to do.
@Suite struct OriginBoundLoginTests {
    static let relayA = RelayOrigin(scheme: "https", host: "relay-a.example", port: 443)
    static let relayB = RelayOrigin(scheme: "https", host: "relay-b.example", port: 443)

    /// Alice is registered at B and logs in to A; A (malicious) fetched the
    /// challenge from B and hands Alice's answer to B, with either origin claimed.
    @Test(arguments: StorageDriver.allCases)
    func signatureForRelayAIsRefusedAtRelayB(driver: StorageDriver) async throws {
        let relayB = try await TestRelay(driver: driver) { $0.origins = [Self.relayB] }
        let alice = try TestUser(seed: "alice")
        try await relayB.application().test(.router) { client in
            _ = try await client.json(.post, RelayPaths.identities, alice.registration(at: relayB.now))
            for claimed in [Self.relayA, Self.relayB] {
                let nonce = try await challenge(client, alice)
                let answer = TokenRequest(identityKey: Base64Bytes(alice.identity), nonce: nonce,
                                          signature: Base64Bytes(AuthChallenge.sign(nonce: nonce.bytes, origin: Self.relayA, with: alice.key)),
                                          origin: claimed.description)
                let refused = try await client.json(.post, RelayPaths.token, answer)
                #expect(refused.status == .unauthorized, "claimed \(claimed)")
                #expect(JSON.errorCode(refused) == "authentication_failed")
                if claimed == Self.relayA {
                    #expect(message(refused).contains("https://relay-b.example:443"), "the refusal names the origin B answers as")
                }
            }
            // The same user, signing for B, gets in.
            #expect(try await client.authenticate(alice, origin: Self.relayB).isEmpty == false)
        }
    }

    /// A client from before origin binding sends no origin and signs the v1 bytes.
    @Test func oldFormatSignatureIsRefusedClearly() async throws {
        let relay = try TestRelay()
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            _ = try await client.json(.post, RelayPaths.identities, alice.registration(at: relay.now))
            let nonce = try await challenge(client, alice)
            let v1 = Array("hush/v1/relay-auth".utf8) + [0] + alice.identity + nonce.bytes
            let old = TokenRequest(identityKey: Base64Bytes(alice.identity), nonce: nonce,
                                   signature: Base64Bytes(alice.key.signature(for: v1)), origin: nil)
            let refused = try await client.json(.post, RelayPaths.token, old)
            #expect(refused.status == .unauthorized)
            #expect(JSON.errorCode(refused) == "authentication_failed")
            #expect(message(refused).contains("update the client"))
        }
    }

    /// On loopback the relay accepts each name of this machine for its port.
    @Test func loopbackSpellingsAreAccepted() async throws {
        let relay = try TestRelay()
        let port = relay.origin.port
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            _ = try await client.json(.post, RelayPaths.identities, alice.registration(at: relay.now))
            for host in ["127.0.0.1", "localhost", "::1"] {
                _ = try await client.authenticate(alice, origin: RelayOrigin(scheme: "http", host: host, port: port))
            }
            let otherPort = RelayOrigin(scheme: "http", host: "127.0.0.1", port: port + 1)
            await #expect(throws: (any Error).self) { try await client.authenticate(alice, origin: otherPort) }
        }
    }

    /// The exact bytes docs/RELAY-API.md gives, so another client can interoperate.
    @Test func signedBytesAreTheDocumentedLayout() throws {
        let identity = [UInt8](repeating: 0x11, count: 32), nonce = [UInt8](repeating: 0x22, count: 32)
        let origin = try RelayOrigin(url: "HTTP://Relay.Example.org/ignored?x#pin=zz")
        #expect(origin.description == "http://relay.example.org:80")
        let expected = Array("hush/v2/relay-auth".utf8) + [0x00] + identity + nonce
            + [0x00, 0x1B] + Array("http://relay.example.org:80".utf8) + [0x00]
        #expect(AuthChallenge.message(identityKey: identity, nonce: nonce, origin: origin) == expected)
        let pin = [UInt8](repeating: 0x33, count: 32)
        #expect(AuthChallenge.message(identityKey: identity, nonce: nonce, origin: origin, pin: pin) == expected.dropLast() + [0x20] + pin)
    }

    @Test func originsAreCanonical() throws {
        #expect(try RelayOrigin(url: "https://relay.example.org").description == "https://relay.example.org:443")
        #expect(try RelayOrigin(url: "http://[::1]:8080/").description == "http://[::1]:8080")
        #expect(try RelayOrigin(url: "http://127.0.0.1:8080").isLoopback)
        #expect(try RelayOrigin(url: "http://relay.example.org:8080").isLoopback == false)
        for bad in ["ftp://relay.example.org", "relay.example.org:8080", "http://", "http://host:70000"] {
            #expect(throws: RelayOriginError.self, "\(bad)") { try RelayOrigin(url: bad) }
        }
    }

    private func challenge(_ client: some TestClientProtocol, _ user: TestUser) async throws -> Base64Bytes {
        try JSON.decode(ChallengeResponse.self,
                        await client.json(.post, RelayPaths.challenge, ChallengeRequest(identityKey: Base64Bytes(user.identity))).body).nonce
    }

    private func message(_ response: TestResponse) -> String {
        (try? JSONDecoder().decode(RelayErrorBody.self, from: Data(buffer: response.body)))?.error.message ?? ""
    }
}
