import Foundation
import HushCrypto
import HushMessenger
import HushProtocol
import HushRelayClient
import HushTesting
import Testing

/// A typing indicator goes over the live socket the transport already holds.
/// The relay keeps a few sockets per identity and closes the oldest when one
/// more opens: a short socket per indicator used to evict the live one.
@Suite struct TypingOverLiveSocketTests {
    /// A registered, logged-in identity whose delivery credential the relay knows.
    struct Party {
        let identity: IdentityKeyPair
        let transport: RelayClientTransport
        let credential: [UInt8]

        init(_ seed: String, relay: RelayServer) async throws {
            let random = DeterministicRandom(seed: seed)
            identity = IdentityKeyPair.generate(using: random)
            transport = RelayClientTransport(client: RelayClient(baseURL: relay.url))
            credential = random.bytes(ContentLimits.deliveryCredentialLength)
            let signed = try PrivatePrekey.generate(kind: .signedX25519, id: 1, identity: identity, using: random)
            let kem = try PrivatePrekey.generate(kind: .lastResortKEM, id: 1, identity: identity, using: random)
            try await transport.register(identity: identity, signedPrekey: signed.signed, lastResortKEMPrekey: kem.signed, oneTimePrekeys: [])
            try await transport.authenticate(identity: identity)
            try await transport.updateDeliveryCredentials(add: [credential], remove: [])
        }
    }

    /// The next event, or nil after `seconds` (a bound, not a timing assertion).
    static func nextEvent(_ iterator: inout AsyncStream<TransportEvent>.Iterator, within seconds: Double = 10) async -> TransportEvent? {
        // Lent to the waiting task and taken back: only one task uses it at a time.
        final class Lent: @unchecked Sendable {
            var iterator: AsyncStream<TransportEvent>.Iterator
            init(_ iterator: AsyncStream<TransportEvent>.Iterator) { self.iterator = iterator }
        }
        let lent = Lent(iterator)
        defer { iterator = lent.iterator }
        return await within(seconds) { await lent.iterator.next() }
    }

    @Test func typingReusesTheLiveSocketInsteadOfEvictingIt() async throws {
        let root = try TemporaryDirectory(label: "e2e-typing")
        defer { withExtendedLifetime(root) {} }
        let relay = try RelayServer(dataDirectory: root.path("relay"))
        defer { relay.stop() }
        let alice = try await Party("typing-alice", relay: relay), bob = try await Party("typing-bob", relay: relay)

        var aliceLive = try await alice.transport.connect().makeAsyncIterator()
        var bobLive = try await bob.transport.connect().makeAsyncIterator()
        // Alice's other devices fill her remaining sockets: the live one is now
        // the oldest, the one the relay closes when another opens.
        var others: [RelaySocket] = []
        for _ in 1..<4 { others.append(try await alice.transport.client.connectSocket()) }

        try await alice.transport.sendEphemeral([1, 2, 3], to: bob.identity.publicKey, credential: bob.credential)
        #expect(await Self.nextEvent(&bobLive) == .ephemeral([1, 2, 3]))
        // Alice's live socket is still the one the relay pushes to.
        try await bob.transport.sendEphemeral([4, 5], to: alice.identity.publicKey, credential: alice.credential)
        #expect(await Self.nextEvent(&aliceLive) == .ephemeral([4, 5]))
        for socket in others { await socket.close() }
    }
}
