import Foundation
import Glibc
import HushTesting
import Testing

/// Connections that never send a request, send one a byte at a time, or send
/// something that is not HTTP/1.1 are closed within the relay's deadlines, and
/// the number one address (or everyone) may hold is capped, while a genuine
/// client keeps being answered. Real sockets against a real relay process.
@Suite struct ConnectionLimitTests {
    static let headTimeout = 2.0

    /// The caps test holds silent connections while it opens more; under CI load that can take
    /// longer than `headTimeout`, and the first ones would be closed (freeing places) before the
    /// refusal is checked. Its deadline is long enough that only the test's own wait reaches it.
    static let capsHeadTimeout = 12.0

    func relay(_ root: String, _ options: [String], headTimeout: Double = headTimeout) throws -> RelayServer {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return try RelayServer(
            dataDirectory: root + "/relay",
            options: ["--request-head-timeout", String(Int(headTimeout)), "--idle-timeout", String(Int(headTimeout) + 1)] + options)
    }

    /// Seconds until the relay closes `fd` (reading and discarding what it sends), at most `limit`.
    func secondsUntilClosed(_ fd: Int32, limit: Double) -> Double {
        var timeout = timeval(tv_sec: Int(limit), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if LoopbackSocket.readSome(fd).isEmpty { break }
        }
        return Date().timeIntervalSince(start)
    }

    /// What the relay sends first on `fd` (waiting at most 5 s).
    func firstBytes(_ fd: Int32) -> String {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return String(decoding: LoopbackSocket.readSome(fd), as: UTF8.self)
    }

    func health(_ relay: RelayServer, from source: String? = nil) throws -> Int {
        let fd = try LoopbackSocket.connect(port: relay.port, from: source)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard LoopbackSocket.writeAll(fd, Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)) else { return 0 }
        let text = String(decoding: LoopbackSocket.readSome(fd), as: UTF8.self)
        return Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test func silentDribblingAndGarbageConnectionsAreClosedWithinTheDeadline() throws {
        let root = try TemporaryDirectory(label: "conn")
        defer { withExtendedLifetime(root) {} }
        let relay = try relay(root.path, [])
        defer { relay.kill() }

        let silent = try (0..<50).map { _ in try LoopbackSocket.connect(port: relay.port) }
        let dribbling = try LoopbackSocket.connect(port: relay.port)
        let tls = try LoopbackSocket.connect(port: relay.port)
        let http2 = try LoopbackSocket.connect(port: relay.port)
        defer { for fd in silent + [dribbling, tls, http2] { close(fd) } }

        // A TLS ClientHello and an HTTP/2 preface: not HTTP/1.1, answered 400 and closed at once.
        _ = LoopbackSocket.writeAll(tls, [0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03] + [UInt8](repeating: 0x42, count: 160))
        _ = LoopbackSocket.writeAll(http2, Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0])
        for fd in [tls, http2] {
            #expect(firstBytes(fd).hasPrefix("HTTP/1.1 400"))
            #expect(secondsUntilClosed(fd, limit: 15) < 1.0)
        }

        // One byte of a request head every half second: never completes, closed at the deadline.
        let start = Date()
        for byte in Array("GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8) {
            if !LoopbackSocket.writeAll(dribbling, [byte]) { break }
            usleep(500_000)
            if Date().timeIntervalSince(start) > 12 { break }
        }
        let dribbled = Date().timeIntervalSince(start) + secondsUntilClosed(dribbling, limit: 10)
        #expect(dribbled < Self.headTimeout + 1.5, "the dribbling connection lived \(dribbled) s")

        // The silent ones are gone too, and a genuine client is answered throughout.
        #expect(try health(relay) == 200)
        for fd in silent { #expect(secondsUntilClosed(fd, limit: 10) < 1.0, "a silent connection outlived its deadline") }
        #expect(try health(relay) == 200)
    }

    /// A relay serving TLS itself finds the end of the first request head in
    /// the decrypted bytes: a keep-alive connection is served after the head
    /// deadline. Before, the gate searched the ciphertext, never found it, and
    /// closed every TLS connection (`hush listen`'s WebSocket too) at the
    /// deadline. A TLS connection whose head never ends is still closed at it.
    @Test func aTLSConnectionOutlivesTheHeadDeadlineOnceItsFirstHeadCame() throws {
        let root = try TemporaryDirectory(label: "tls-head")
        defer { withExtendedLifetime(root) {} }
        try FileManager.default.createDirectory(atPath: root.path, withIntermediateDirectories: true)
        let relay = try RelayServer(dataDirectory: root.path + "/relay",
                                    options: ["--tls-self-signed", "--request-head-timeout", "5", "--idle-timeout", "120"])
        defer { relay.kill() }
        func throughOpenSSL(_ input: String) throws -> (output: String, seconds: Double) {
            let started = Date()
            let client = try ChildProcess(["-c", "(\(input)) | openssl s_client -connect 127.0.0.1:\(relay.port) -quiet"],
                                          environment: HushEnvironment.base, executable: "/bin/sh")
            let result = client.finish(timeout: 60)
            return (result.stdout, Date().timeIntervalSince(started))
        }
        let request = "printf 'GET /v1/health HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'"
        let lastRequest = "printf 'GET /v1/health HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'"
        let kept = try throughOpenSSL("\(request); sleep 8; \(lastRequest); sleep 5")
        #expect(kept.output.components(separatedBy: "HTTP/1.1 200").count - 1 == 2,
                "the second request, after the head deadline, was not answered: \(kept.output) (\(relay.diagnosis))")
        // A head that never ends, a byte a second (the loop ends when openssl does, at the close).
        let dribbling = try throughOpenSSL("printf 'GET /v1/health HTTP/1.1\\r\\nX-Slow: '; while sleep 1; do printf a || exit; done")
        #expect(dribbling.seconds < 20, "a TLS connection without a complete request head lived \(dribbling.seconds) s")
    }

    @Test func connectionsBeyondTheCapsAreRefusedWhileOtherAddressesAreServed() throws {
        let root = try TemporaryDirectory(label: "caps")
        defer { withExtendedLifetime(root) {} }
        let relay = try relay(root.path, ["--max-connections-per-address", "5", "--max-connections", "12"], headTimeout: Self.capsHeadTimeout)
        defer { relay.kill() }
        let opened = Date()

        // 127.0.0.9 holds five; its sixth is refused with a 503 at once.
        let held = try (0..<5).map { _ in try LoopbackSocket.connect(port: relay.port, from: "127.0.0.9") }
        defer { for fd in held { close(fd) } }
        usleep(200_000)
        let sixth = try LoopbackSocket.connect(port: relay.port, from: "127.0.0.9")
        defer { close(sixth) }
        let refusal = firstBytes(sixth)
        #expect(refusal.hasPrefix("HTTP/1.1 503"), "\(refusal) (\(relay.diagnosis))")
        // Another address is served.
        #expect(try health(relay, from: "127.0.0.10") == 200, "\(relay.diagnosis)")

        // Fill the total (12) from other addresses: the next is refused, whoever it is.
        let more = try (11...17).map { try LoopbackSocket.connect(port: relay.port, from: "127.0.0.\($0)") }
        defer { for fd in more { close(fd) } }
        usleep(200_000)
        let overTotal = try LoopbackSocket.connect(port: relay.port, from: "127.0.0.30")
        defer { close(overTotal) }
        let overTotalAnswer = firstBytes(overTotal)
        #expect(overTotalAnswer.hasPrefix("HTTP/1.1 503"),
                "\(overTotalAnswer) (\(Date().timeIntervalSince(opened)) s after the first were opened; \(relay.diagnosis))")
        // Once the silent ones hit their deadline, places are free again (asked until a little after it).
        var status = 0
        while status != 200, Date().timeIntervalSince(opened) < Self.capsHeadTimeout + 15 {
            status = (try? health(relay, from: "127.0.0.30")) ?? 0
            if status != 200 { usleep(250_000) }
        }
        #expect(status == 200, "places were not freed after the head deadline (\(relay.diagnosis))")
    }
}
