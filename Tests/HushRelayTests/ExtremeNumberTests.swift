import Foundation
import HTTPTypes
import HummingbirdTesting
import HushCrypto
import HushProtocol
import HushRelay
import HushMessenger
import HushRelayAPI
import HushRelayClient
import NIOCore
import Testing

/// Every integer a client chooses, on every route that takes one, at the
/// edges of its type and beyond: the answer is a 4xx (or a success where the
/// value is legal), never a 5xx and never a trap (a trap here would kill the
/// test process, as it killed the relay; ServeProcessTests repeats the worst
/// case against a real `hush relay serve`).
@Suite struct ExtremeNumberTests {
    static let extremes = ["-9223372036854775808", "-9223372036854775807", "-1", "0", "1",
                           "2147483647", "4294967295", "4294967296", "9223372036854775807",
                           "9223372036854775808", "18446744073709551615", "18446744073709551616",
                           "1e308", "-0", "1.5"]

    func expectClientError(_ response: TestResponse, _ what: String, allowing success: Set<HTTPResponse.Status> = []) {
        let code = response.status.code
        #expect((400..<500).contains(code) || success.contains(response.status), "\(what) answered \(response.status)")
    }

    func raw(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, _ json: String,
             token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: json))
    }

    @Test func registrationTimestampsAtTheEdgesOfInt64AreRefusedNotTrapped() async throws {
        // Rate limits off: every request must reach the parsing under test, not a 429.
        let relay = try TestRelay { $0.rateLimits = .unlimited }
        let alice = try TestUser(seed: "alice")
        try await relay.application().test(.router) { client in
            // Correctly signed registrations whose timestamp is far from the relay's clock.
            for timestamp in [Int64.min, Int64.min + 1, -1, 0, Int64.max, Int64.max - 1] {
                let response = try await client.json(.post, RelayPaths.identities, alice.registration(at: timestamp))
                #expect(response.status == .unprocessableContent || response.status == .badRequest, "timestamp \(timestamp): \(response.status)")
            }
            // The same with every number as raw JSON text, including ones no Int64 holds.
            let valid = String(decoding: try JSONEncoder().encode(alice.registration(at: relay.now)), as: UTF8.self)
            for number in Self.extremes {
                let body = valid.replacingOccurrences(of: #""timestamp":\d+"#, with: "\"timestamp\":\(number)", options: .regularExpression)
                #expect(body != valid)
                expectClientError(try await raw(client, .post, RelayPaths.identities, body), "timestamp \(number)")
                let prekeyID = valid.replacingOccurrences(of: #""id":\d+"#, with: "\"id\":\(number)", options: .regularExpression)
                expectClientError(try await raw(client, .post, RelayPaths.identities, prekeyID), "prekey id \(number)",
                                  allowing: [.created, .conflict])
                let kind = valid.replacingOccurrences(of: #""kind":\d+"#, with: "\"kind\":\(number)", options: .regularExpression)
                expectClientError(try await raw(client, .post, RelayPaths.identities, kind), "prekey kind \(number)")
            }
            #expect(try await client.get(RelayPaths.health).status == .ok)
        }
    }

    @Test func syncAndAcknowledgeNumbersAtTheEdgesAreRefusedOrServed() async throws {
        // Rate limits off: every request must reach the parsing under test, not a 429.
        let relay = try TestRelay { $0.rateLimits = .unlimited }
        let bob = try TestUser(seed: "bob")
        try await relay.application().test(.router) { client in
            let token = try await client.registerAndAuthenticate(bob, relay: relay)
            #expect(try await client.deposit(to: bob, requestID: "edge-1", envelope: Array(repeating: 7, count: 500)).status == .created)
            let messages = RelayPaths.mailboxMessages(bob.identity)
            for number in Self.extremes {
                expectClientError(try await client.get(messages + "?after=\(number)", token: token), "after=\(number)", allowing: [.ok])
                expectClientError(try await client.get(messages + "?limit=\(number)", token: token), "limit=\(number)", allowing: [.ok])
                expectClientError(try await raw(client, .post, RelayPaths.mailboxAck(bob.identity), "{\"messageIDs\":[\(number)]}", token: token),
                                  "ack \(number)", allowing: [.ok])
                expectClientError(try await raw(client, .post, RelayPaths.prekeys,
                                                "{\"oneTimePrekeys\":[{\"kind\":2,\"id\":\(number),\"publicKey\":\"AA==\",\"signature\":\"AA==\"}]}",
                                                token: token), "upload prekey id \(number)")
            }
            // The deposit survived every odd ack, and a real one still works.
            let page = try JSON.decode(SyncResponse.self, try await client.get(messages, token: token).body)
            #expect(page.messages.count == 1)
            let ack = try await client.json(.post, RelayPaths.mailboxAck(bob.identity), AckRequest(messageIDs: page.messages.map(\.messageID)), token: token)
            #expect(ack.status == .ok)
        }
    }
}

/// The client side: a relay's Retry-After is the relay's number.
@Suite struct RetryAfterClientTests {
    @Test func anExtremeRetryAfterIsClampedToADayAndANegativeOneToNow() {
        func failure(_ seconds: Int) -> DeliveryFailure {
            DeliveryFailure(RelayClientError.http(status: 429, code: "rate_limited", message: "", retryAfterSeconds: seconds))
        }
        #expect(failure(Int.max) == .rateLimited(retryAfterMilliseconds: 86_400_000))
        #expect(failure(Int.min) == .rateLimited(retryAfterMilliseconds: 0))
        #expect(failure(-1) == .rateLimited(retryAfterMilliseconds: 0))
        #expect(failure(600) == .rateLimited(retryAfterMilliseconds: 600_000))
    }
}
