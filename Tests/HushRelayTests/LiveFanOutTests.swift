import Foundation
import HushMessenger
import HushProtocol
import HushRelay
import HushRelayAPI
import HushRelayClient
import HushTesting
import Testing

/// A fan-out through the real client over a loopback port.
@Suite struct LiveFanOutTests {
    /// Three registered identities, one with a credential the others lack:
    /// one request (plus one more for the two first contacts' proof of work)
    /// stores the envelope once in each mailbox, pushes it to a connected
    /// socket, and a repeat stores nothing more.
    @Test func aFanOutStoresTheEnvelopeOnceInEachMailbox() async throws {
        try await LiveRelayTests.withLiveRelay(configure: { $0.rateLimits.firstContactWorkBits = 6 }) { relay, aliceClient, bobClient, alice, bob in
            let carol = try TestUser(seed: "carol")
            let carolClient = RelayClient(baseURL: aliceClient.baseURL)
            try await carolClient.register(identity: carol.key, signedPrekey: carol.signedPrekey, lastResortKEMPrekey: carol.lastResortKEM,
                                           oneTimePrekeys: [], timestamp: relay.now)
            try await carolClient.authenticate(identity: carol.key)
            let credential = [UInt8](repeating: 0x5A, count: 32)
            try await aliceClient.updateCredentials(add: [credential])
            let socket = try await aliceClient.connectSocket()

            let sender = RelayClient(baseURL: aliceClient.baseURL)
            let envelope = sealedSized(Array("to the group".utf8))
            let targets = [RelayFanOutTarget(mailbox: alice.identity, credential: credential),
                           RelayFanOutTarget(mailbox: bob.identity, credential: nil),
                           RelayFanOutTarget(mailbox: carol.identity, credential: nil)]
            let results = try await sender.depositFanOut(envelope: envelope, requestID: "group-1", recipients: targets)
            let receipts = try results.map { try $0.get() }
            for (client, receipt) in zip([aliceClient, bobClient, carolClient], receipts) {
                let held = try await client.sync().messages
                #expect(held.map(\.messageID) == [receipt.messageID])
                #expect(held.first?.envelope.bytes == envelope && held.first?.isIntact == true)
            }
            guard case let .message(pushed) = await LiveRelayTests.nextEvent(socket) else {
                throw TestFailure("alice's socket got no push")
            }
            #expect(pushed.messageID == receipts[0].messageID && pushed.envelope.bytes == envelope)
            await socket.close()

            // Idempotent: the same fan-out answers the same ids and stores nothing more.
            let again = try await sender.depositFanOut(envelope: envelope, requestID: "group-1", recipients: targets)
            #expect(try again.map { try $0.get() } == receipts)
            for client in [aliceClient, bobClient, carolClient] { #expect(try await client.sync().messages.count == 1) }
        }
    }

    /// The messenger's transport: per-recipient refusals map as `deposit`'s
    /// errors do; a relay that cannot be reached fails the whole call.
    @Test func theTransportMapsEachRecipientAndThrowsOnlyForTheWholeRequest() async throws {
        try await LiveRelayTests.withLiveRelay { _, aliceClient, bobClient, alice, bob in
            let transport = RelayClientTransport(client: RelayClient(baseURL: aliceClient.baseURL))
            let stranger = try TestUser(seed: "stranger")
            let envelope = sealedSized([4, 2])
            let results = try await transport.depositFanOut(envelope, requestID: "t-1", to: [
                FanOutRecipient(key: IdentityKey(rawRepresentation: alice.identity), credential: nil),
                FanOutRecipient(key: IdentityKey(rawRepresentation: stranger.identity), credential: nil),
                FanOutRecipient(key: IdentityKey(rawRepresentation: bob.identity), credential: [UInt8](repeating: 1, count: 32)),
            ])
            let stored = try results[0].get()
            #expect(try await aliceClient.sync().messages.map(\.messageID) == [UInt64(stored.serverID)])
            #expect(throws: DeliveryFailure.rejected(status: 404, code: "not_found")) { try results[1].get() }
            #expect(throws: DeliveryFailure.rejected(status: 403, code: "invalid_credential")) { try results[2].get() }
            #expect(try await bobClient.sync().messages.isEmpty)

            let down = RelayClientTransport(client: RelayClient(baseURL: "http://127.0.0.1:1"))
            await #expect {
                _ = try await down.depositFanOut(envelope, requestID: "t-2", to: [FanOutRecipient(key: IdentityKey(rawRepresentation: alice.identity),
                                                                                                   credential: nil)])
            } throws: { error in
                if case .unavailable = error as? DeliveryFailure { true } else { false }
            }
        }
    }
}
