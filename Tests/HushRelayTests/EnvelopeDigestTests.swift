import Foundation
import HTTPTypes
import HummingbirdTesting
import HushCrypto
import HushRelay
import HushRelayAPI
import NIOCore
import Testing

/// The envelope's SHA-256 travels beside it: a deposit damaged on the way is
/// refused (and stores nothing), and every envelope the relay hands out
/// carries the digest its reader checks.
@Suite struct EnvelopeDigestTests {
    @Test func aDepositThatDoesNotMatchItsDigestIsRefusedAndStoresNothing() async throws {
        let relay = try TestRelay()
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let envelope = sealedSized([5, 5, 5])
            var damaged = envelope
            damaged[damaged.count / 2] ^= 0x40
            func deposit(_ body: [UInt8], digest: String, requestID: String) async throws -> TestResponse {
                var headers = BinaryDepositTests.headers(requestID: requestID)
                headers[HTTPField.Name(EnvelopeDigest.header)!] = digest
                return try await client.execute(uri: RelayPaths.mailboxMessages(alice.identity), method: .post, headers: headers,
                                                body: ByteBuffer(bytes: body))
            }
            let digest = Data(EnvelopeDigest.of(envelope)).base64EncodedString()
            let refused = try await deposit(damaged, digest: digest, requestID: "digest-1")
            #expect(refused.status == .badRequest && JSON.errorCode(refused) == "digest_mismatch")
            #expect(try await deposit(envelope, digest: "not base64 %%", requestID: "digest-2").status == .unprocessableContent)
            #expect(try await deposit(envelope, digest: Data([1, 2, 3]).base64EncodedString(), requestID: "digest-3").status == .unprocessableContent)
            // The same request id, intact this time, is stored.
            #expect(try await deposit(envelope, digest: digest, requestID: "digest-1").status == .created)

            let synced = try JSON.decode(SyncResponse.self, await client.get(RelayPaths.mailboxMessages(alice.identity), token: token).body)
            #expect(synced.messages.map(\.envelope.bytes) == [envelope], "only the intact one was stored")
            #expect(synced.messages.allSatisfy { $0.envelopeSHA256?.bytes == EnvelopeDigest.of($0.envelope.bytes) && $0.isIntact })
        }
    }

    @Test func aMessageWhoseEnvelopeWasDamagedIsNotIntact() {
        let envelope = sealedSized([1])
        var message = MailboxMessage(messageID: 1, timestamp: 0, expiresAt: 1, envelope: Base64Bytes(envelope),
                                     envelopeSHA256: Base64Bytes(EnvelopeDigest.of(envelope)))
        #expect(message.isIntact)
        message.envelope.bytes[3] ^= 1
        #expect(!message.isIntact)
    }
}
