import AsyncHTTPClient
import Foundation
import HushCrypto
import HushRelayClient
import HushSubprocess
import HushTesting
import Testing

/// `hush relay serve --metrics HOST:PORT` as a real process: scraped during
/// a message exchange, the endpoint has the counters, and no identity key
/// or address of the users.
@Suite struct MetricsEndpointTests {
    /// Reads standard output until both lines are there.
    private func baseURLs(_ relay: Subprocess) -> (relay: String, metrics: String)? {
        var text = ""
        for _ in 0..<200 {
            let chunk = relay.readOutput()
            if chunk.isEmpty { return nil }
            text += String(decoding: chunk, as: UTF8.self)
            let lines = text.split(separator: "\n")
            if let relay = lines.first(where: { $0.hasPrefix("hush relay listening on ") }),
               let metrics = lines.first(where: { $0.hasPrefix("hush relay metrics on ") }) {
                return (String(relay.dropFirst("hush relay listening on ".count)), String(metrics.dropFirst("hush relay metrics on ".count)))
            }
        }
        return nil
    }

    private func scrape(_ url: String) async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        #expect(response.status.code == 200)
        return String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    @Test func countersDuringAnExchangeAndNoIdentities() async throws {
        let directory = try TemporaryDirectory()
        let relay = try ServeProcessTests.startHush(["relay", "serve", "--port", "0", "--metrics", "127.0.0.1:0", "--first-contact-work-bits", "0",
                                                                 "--data", directory.path + "/relay", "--log-level", "warning"])
        defer { relay.stop() }
        let urls = try #require(baseURLs(relay))

        let alice = try TestUser(seed: "metrics-alice"), bob = try TestUser(seed: "metrics-bob")
        let aliceClient = RelayClient(baseURL: urls.relay), bobClient = RelayClient(baseURL: urls.relay)
        for (user, client) in [(alice, aliceClient), (bob, bobClient)] {
            try await client.register(identity: user.key, signedPrekey: user.signedPrekey, lastResortKEMPrekey: user.lastResortKEM, oneTimePrekeys: [])
            try await client.authenticate(identity: user.key)
        }
        let socket = try await bobClient.connectSocket()
        defer { Task { await socket.close() } }
        var text = ""
        for _ in 0..<100 {
            text = try await scrape(urls.metrics)
            if text.contains("hush_relay_sockets_open 1") { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(text.contains("hush_relay_sockets_open 1"))

        let envelope = sealedSized([7, 7, 7])
        _ = try await aliceClient.deposit(recipient: bob.identity, envelope: envelope, requestID: "m1", credential: nil)
        let page = try await bobClient.sync()
        #expect(try await bobClient.ack(ids: page.messages.map(\.messageID)) == 1)
        await #expect(throws: RelayClientError.self) { try await aliceClient.sync(mailbox: bob.identity) }  // 403: not hers

        text = try await scrape(urls.metrics)
        for expected in ["hush_relay_deposits_total 1", "hush_relay_deposit_bytes_total \(envelope.count)", "hush_relay_syncs_total 1",
                         "hush_relay_acks_total 1", "hush_relay_acknowledged_envelopes_total 1", "hush_relay_pushes_total 1",
                         #"hush_relay_refusals_total{status="403",reason="forbidden"} 1"#,
                         #"hush_relay_request_duration_seconds_count{route="/v1/mailboxes/{identity}/messages",method="POST"} 1"#,
                         "hush_relay_storage_bytes "] {
            #expect(text.contains(expected), "missing: \(expected)")
        }
        for user in [alice, bob] {
            #expect(!text.lowercased().contains(Hex.encode(user.identity)))
            #expect(!text.contains(Data(user.identity).base64EncodedString()))
        }
        #expect(!text.contains("127.0.0.1"))
    }
}
