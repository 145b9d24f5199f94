import Foundation
import HTTPTypes
import HummingbirdTesting
import HushCrypto
import HushRelay
import HushRelayAPI
import HushRelayClient
import NIOCore
import Testing

/// First-contact deposits carry proof of work bound to the mailbox, the
/// request id and the envelope; a flood without it never reaches storage.
@Suite struct FirstContactWorkTests {
    @Test func theDigestIsTheDocumentedConstruction() throws {
        let mailbox = [UInt8](repeating: 0xab, count: 32)
        let prefix = FirstContactWork.prefix(mailbox: mailbox, requestID: "req-1", envelope: Array("sealed".utf8))
        #expect(prefix == Array("hush/v1/first-contact".utf8) + [0] + mailbox + [5] + Array("req-1".utf8) + SHA256.hash(Array("sealed".utf8)))
        let nonce = FirstContactWork.solve(mailbox: mailbox, requestID: "req-1", envelope: Array("sealed".utf8), bits: 12)
        #expect(nonce.count == 8)
        #expect(FirstContactWork.leadingZeroBits(FirstContactWork.digest(prefix: prefix, nonce: nonce)) >= 12)
        #expect(FirstContactWork.isValid(nonce: nonce, prefix: prefix, bits: 12))
        // Bound to everything it covers.
        let otherRequest = FirstContactWork.prefix(mailbox: mailbox, requestID: "req-2", envelope: Array("sealed".utf8))
        #expect(FirstContactWork.leadingZeroBits(FirstContactWork.digest(prefix: otherRequest, nonce: nonce)) < 12
                || !FirstContactWork.isValid(nonce: nonce + [0], prefix: prefix, bits: 12))
        #expect(FirstContactWork.leadingZeroBits([0x00, 0x0f] + [UInt8](repeating: 0xff, count: 30)) == 12)
        #expect(FirstContactWork.leadingZeroBits([UInt8](repeating: 0, count: 32)) == 256)
    }

    @Test func withoutEnoughWorkAFirstContactIsRefusedBeforeStorageAndTheDifficultyRisesWithVolume() async throws {
        let relay = try TestRelay {
            $0.rateLimits.firstContactWorkBits = 8
            $0.rateLimits.firstContactPerAddress = .init(burst: 1_000, perSecond: 1_000)
        }
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let envelope = [UInt8](repeating: 3, count: 500)
            let refused = try await client.deposit(to: alice, requestID: "nowork", envelope: envelope)
            #expect(refused.status == .preconditionRequired)
            #expect(JSON.errorCode(refused) == "work_required")
            #expect(refused.headers[HTTPFields.Element.Name(FirstContactWork.bitsHeader)!] == "8")

            func deposit(_ id: String, bits: Int, forID: String? = nil) async throws -> TestResponse {
                let work = FirstContactWork.solve(mailbox: alice.identity, requestID: forID ?? id, envelope: envelope, bits: bits)
                return try await client.json(.post, RelayPaths.mailboxMessages(alice.identity),
                                             DepositRequest(requestID: id, envelope: Base64Bytes(envelope), credential: nil, work: Base64Bytes(work)))
            }
            #expect(try await deposit("stolen", bits: 8, forID: "other").status == .preconditionRequired, "work is bound to the request id")
            #expect(try await deposit("w1", bits: 8).status == .created)
            // Twelve more first contacts in a row: the mailbox's difficulty rises past 8.
            for index in 2...13 { _ = try await deposit("w\(index)", bits: 14) }
            let next = try await client.deposit(to: alice, requestID: "late", envelope: envelope)
            let bits = Int(next.headers[HTTPFields.Element.Name(FirstContactWork.bitsHeader)!] ?? "") ?? 0
            #expect(bits >= 10, "after 13 first contacts the mailbox asks for \(bits) bits")
            // Nothing refused was stored: exactly the 13 paid deposits are in the mailbox.
            let page = try JSON.decode(SyncResponse.self, try await client.get(RelayPaths.mailboxMessages(alice.identity) + "?limit=100", token: token).body)
            #expect(page.messages.count == 13)
        }
    }

    @Test func theClientDoesTheWorkTheRelayAsksFor() async throws {
        try await LiveRelayTests.withLiveRelay(configure: { $0.rateLimits.firstContactWorkBits = 10 }) { _, aliceClient, bobClient, alice, _ in
            let receipt = try await bobClient.deposit(recipient: alice.identity, envelope: [UInt8](repeating: 9, count: 500),
                                                      requestID: "first-contact", credential: nil)
            #expect(receipt.messageID > 0)
            #expect(try await aliceClient.sync().messages.count == 1)
        }
    }
}
