import Foundation
import HTTPTypes
import HummingbirdTesting
import HushCrypto
import HushRelay
import HushRelayAPI
import HushTesting
import NIOCore
import Testing

/// The binary deposit form: raw envelope body, request id and credential in headers.
@Suite struct BinaryDepositTests {
    static func headers(requestID: String?, credential: String? = nil) -> HTTPFields {
        var headers: HTTPFields = [.contentType: BinaryDeposit.contentType]
        if let requestID { headers[HTTPField.Name(BinaryDeposit.requestIDHeader)!] = requestID }
        if let credential { headers[HTTPField.Name(BinaryDeposit.credentialHeader)!] = credential }
        return headers
    }

    static func deposit(_ client: some TestClientProtocol, to user: TestUser, requestID: String?, envelope: [UInt8],
                        credential: String? = nil) async throws -> TestResponse {
        try await client.execute(uri: RelayPaths.mailboxMessages(user.identity), method: .post,
                                 headers: headers(requestID: requestID, credential: credential), body: ByteBuffer(bytes: envelope))
    }

    @Test func binaryDepositIsStoredIdempotentAndEqualToTheJSONForm() async throws {
        let relay = try TestRelay()
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            let first = try await Self.deposit(client, to: alice, requestID: "bin-1", envelope: sealedSized([1, 2, 3]))
            #expect(first.status == .created)
            let record = try JSON.decode(DepositResponse.self, first.body)
            // A repeat in either form answers the first result; another envelope conflicts.
            let again = try await Self.deposit(client, to: alice, requestID: "bin-1", envelope: sealedSized([1, 2, 3]))
            #expect(again.status == .created)
            #expect(try JSON.decode(DepositResponse.self, again.body) == record)
            let json = try await client.deposit(to: alice, requestID: "bin-1", envelope: sealedSized([1, 2, 3]))
            #expect(json.status == .created)
            #expect(try JSON.decode(DepositResponse.self, json.body) == record)
            #expect(try await Self.deposit(client, to: alice, requestID: "bin-1", envelope: sealedSized([9])).status == .conflict)
            let synced = try JSON.decode(SyncResponse.self, await client.get(RelayPaths.mailboxMessages(alice.identity), token: token).body)
            #expect(synced.messages.map(\.envelope.bytes) == [sealedSized([1, 2, 3])] && synced.messages[0].messageID == record.messageID)
        }
    }

    @Test func binaryDepositErrors() async throws {
        let relay = try TestRelay()
        let alice = try TestUser(seed: "alice"), stranger = try TestUser(seed: "stranger")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(alice, relay: relay)
            #expect(try await Self.deposit(client, to: stranger, requestID: "a", envelope: sealedSized([1])).status == .notFound)
            #expect(try await Self.deposit(client, to: alice, requestID: nil, envelope: sealedSized([1])).status == .unprocessableContent)
            #expect(try await Self.deposit(client, to: alice, requestID: "bad id!", envelope: sealedSized([1])).status == .unprocessableContent)
            #expect(try await Self.deposit(client, to: alice, requestID: "empty", envelope: []).status == .unprocessableContent)
            #expect(try await Self.deposit(client, to: alice, requestID: "c", envelope: sealedSized([1]), credential: "%%%").status == .unprocessableContent)
            let big = try await Self.deposit(client, to: alice, requestID: "big", envelope: [UInt8](repeating: 7, count: RelayLimits.maxEnvelopeBytes + 1))
            #expect(big.status == .contentTooLarge && JSON.errorCode(big) == "too_large")
            // Credentials in the header: a registered one passes, another is refused.
            let credential = DeterministicRandom(seed: "binary-credential").bytes(32)
            let add = CredentialsRequest(add: [Base64Bytes(DeliveryCredential.hash(credential))])
            #expect(try await client.json(.post, RelayPaths.mailboxCredentials(alice.identity), add, token: token).status == .ok)
            let good = Data(credential).base64EncodedString(), wrong = Data([UInt8](repeating: 0, count: 32)).base64EncodedString()
            #expect(try await Self.deposit(client, to: alice, requestID: "c1", envelope: sealedSized([4]), credential: good).status == .created)
            let refused = try await Self.deposit(client, to: alice, requestID: "c2", envelope: sealedSized([5]), credential: wrong)
            #expect(refused.status == .forbidden && JSON.errorCode(refused) == "invalid_credential")
        }
    }

    /// One envelope-size rule, the protocol's (434…68,992 bytes: a device prekey message is the largest), at its edges in both forms.
    @Test func theEnvelopeSizeRuleIsTheProtocolsAtItsEdges() async throws {
        let relay = try TestRelay()
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            _ = try await client.registerAndAuthenticate(alice, relay: relay)
            let min = RelayLimits.minEnvelopeBytes, max = RelayLimits.maxEnvelopeBytes
            #expect(min == 434 && max == 68_992, "docs/PROTOCOL.md §9.2, §20.10")
            for (size, expected) in [(min - 1, HTTPResponse.Status.unprocessableContent), (min, .created), (max, .created), (max + 1, .contentTooLarge)] {
                let envelope = [UInt8](repeating: 5, count: size)
                let binary = try await Self.deposit(client, to: alice, requestID: "bin-\(size)", envelope: envelope)
                #expect(binary.status == expected, "binary, \(size) bytes: \(binary.status)")
                let json = try await client.deposit(to: alice, requestID: "json-\(size)", envelope: envelope)
                #expect(json.status == expected, "JSON, \(size) bytes: \(json.status)")
            }
        }
    }
}
