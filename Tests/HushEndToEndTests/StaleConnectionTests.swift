import Foundation
import Glibc
import HushCrypto
import HushMessenger
import HushProtocol
import HushRelayClient
import HushTesting
import Testing

/// A kept-alive connection that the relay closed for idleness just as the
/// next request went out: that request gets no answer, only the closed
/// connection, and the HTTP client does not try again. The relay client
/// sends it once more on a new connection when a repeat is harmless
/// (docs/RELAY-API.md, "Repeating a request"), and never a registration.
@Suite struct StaleConnectionTests {
    /// Answers the first request of every connection (`{"status":"ok"}`,
    /// kept alive) and closes the connection at the second without a word.
    final class IdleClosingServer: @unchecked Sendable {
        let port: Int
        private let lock = NSLock()
        private var lines: [String] = []
        private let connections: OpenSockets

        init() throws {
            (port, connections) = try OpenSockets.listening()
            connections.serveEach { [self] in serve($0) }
        }

        /// Closes the listener and every connection (the threads hold the server until then).
        func stop() { connections.stop() }

        var url: String { "http://127.0.0.1:\(port)" }
        /// The request lines read, in order.
        var requests: [String] { lock.withLock { lines } }

        private func serve(_ client: Int32) {
            var reader = HTTPStreamReader(fd: client)
            guard let first = reader.nextMessage() else { return }
            lock.withLock { lines.append(first.firstLine) }
            let body = #"{"status":"ok"}"#
            let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            guard LoopbackSocket.writeAll(client, Array(answer.utf8)) else { return }
            if let second = reader.nextMessage() { lock.withLock { lines.append(second.firstLine) } }
        }
    }

    @Test func aRequestThatMayBeRepeatedIsSentOnceMoreOnANewConnection() async throws {
        let server = try IdleClosingServer()
        defer { server.stop() }
        let client = RelayClient(baseURL: server.url)
        #expect(try await client.health().status == "ok")
        // The kept-alive connection is closed under the second request; the repeat goes out on a new one.
        #expect(try await client.health().status == "ok")
        #expect(server.requests == Array(repeating: "GET /v1/health HTTP/1.1", count: 3), "\(server.requests)")
    }

    @Test func aRegistrationIsNeverRepeated() async throws {
        let server = try IdleClosingServer()
        defer { server.stop() }
        let transport = RelayClientTransport(client: RelayClient(baseURL: server.url))
        #expect(try await transport.client.health().status == "ok")
        let random = DeterministicRandom(seed: "stale-connection")
        let identity = IdentityKeyPair.generate(using: random)
        let signed = try PrivatePrekey.generate(kind: .signedX25519, id: 1, identity: identity, using: random)
        let kem = try PrivatePrekey.generate(kind: .lastResortKEM, id: 1, identity: identity, using: random)
        // Its repeat would carry the same timestamp, which the relay refuses as stale: the failure is reported instead.
        await #expect(throws: DeliveryFailure.self) {
            try await transport.register(identity: identity, signedPrekey: signed.signed, lastResortKEMPrekey: kem.signed, oneTimePrekeys: [])
        }
        #expect(server.requests.filter { $0.hasPrefix("POST /v1/identities ") }.count == 1, "\(server.requests)")
    }
}
