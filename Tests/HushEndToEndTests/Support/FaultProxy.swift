import Foundation
import Glibc

/// An HTTP/1.1 forwarder between `hush` clients and the relay that damages
/// traffic the way a bad network path would, request by request: it flips a
/// byte of a deposited envelope or of a sync page's envelope, sends a deposit
/// twice, holds requests back, or cuts the connection after the relay
/// answered (so the client never sees the answer). WebSocket upgrades are
/// refused (clients fall back to sync). Faults are drawn from a seeded
/// generator and counted.
final class FaultProxy: @unchecked Sendable {
    struct Odds: Sendable {
        var corruptDeposit = 0.0
        var corruptSyncPage = 0.0
        var reorderSyncPage = 0.0
        var duplicateDeposit = 0.0
        var delay = 0.0
        var cutAfterAnswer = 0.0
    }

    struct Counts: Sendable, CustomStringConvertible {
        var requests = 0
        var corruptedDeposits = 0
        var corruptedPages = 0
        var reorderedPages = 0
        var duplicatedDeposits = 0
        var delayed = 0
        var cutAnswers = 0
        var description: String {
            "\(requests) requests: \(corruptedDeposits) deposits and \(corruptedPages) sync pages corrupted, \(reorderedPages) pages reordered, "
                + "\(duplicatedDeposits) deposits sent twice, \(delayed) delayed, \(cutAnswers) answers cut"
        }
    }

    let port: Int
    private let target: Int
    private let lock = NSLock()
    private var odds: Odds
    private var random: SoakRandom
    private var counts = Counts()
    private let connections: OpenSockets

    init(forwardingTo target: Int, odds: Odds, seed: UInt64) throws {
        self.target = target
        self.odds = odds
        random = SoakRandom(seed: seed)
        (port, connections) = try OpenSockets.listening()
        connections.serveEach { [self] in serve($0) }
    }

    var url: String { "http://127.0.0.1:\(port)" }
    var figures: Counts { lock.withLock { counts } }

    /// Faults off (for settling at the end of a run) or on again.
    func setOdds(_ new: Odds) { lock.withLock { odds = new } }

    private func chance(_ pick: (Odds) -> Double) -> Bool {
        lock.withLock { random.chance(pick(odds)) }
    }

    private func count(_ update: (inout Counts) -> Void) { lock.withLock { update(&counts) } }

    /// One client connection: requests in order, each forwarded on a fresh
    /// upstream connection (the relay may be down; the client then sees the
    /// connection close, as with the relay itself).
    private func serve(_ client: Int32) {
        var reader = HTTPStreamReader(fd: client)
        while let request = reader.nextMessage() {
            count { $0.requests += 1 }
            if request.head.lowercased().contains("upgrade: websocket") {
                _ = LoopbackSocket.writeAll(client, Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
            let isDeposit = request.head.hasPrefix("POST ") && request.firstLine.contains("/messages")
            let isSync = request.head.hasPrefix("GET ") && request.firstLine.contains("/messages")
            var body = request.body
            if chance({ $0.delay }) {
                count { $0.delayed += 1 }
                usleep(UInt32.random(in: 50_000..<400_000))
            }
            if isDeposit, body.count > 64, chance({ $0.corruptDeposit }) {
                count { $0.corruptedDeposits += 1 }
                body[body.count / 2] ^= 0x20
            }
            if isDeposit, chance({ $0.duplicateDeposit }) {
                count { $0.duplicatedDeposits += 1 }
                _ = exchange(request.head, request.body)
            }
            guard var answer = exchange(request.head, body) else { return }
            if isSync, chance({ $0.corruptSyncPage }), let range = Self.firstEnvelopeRange(in: answer.body) {
                count { $0.corruptedPages += 1 }
                // Swap one base64 letter for another: still well-formed JSON and base64, other bytes.
                let index = range.lowerBound + (range.count / 2)
                answer.body[index] = answer.body[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            }
            if isSync, chance({ $0.reorderSyncPage }), let reordered = Self.reversedPage(answer.body) {
                count { $0.reorderedPages += 1 }
                answer.body = reordered
                answer.head = HTTPStreamReader.withContentLength(answer.head, reordered.count)
            }
            if chance({ $0.cutAfterAnswer }) {
                count { $0.cutAnswers += 1 }
                return
            }
            guard LoopbackSocket.writeAll(client, Array(answer.head.utf8) + answer.body) else { return }
        }
    }

    /// Sends one request upstream and reads one answer; nil when the relay
    /// could not be reached or closed without answering.
    private func exchange(_ head: String, _ body: [UInt8]) -> HTTPStreamReader.Message? {
        guard let upstream = try? LoopbackSocket.connect(port: target) else { return nil }
        defer { close(upstream) }
        let fixedHead = HTTPStreamReader.withContentLength(head, body.count)
        guard LoopbackSocket.writeAll(upstream, Array(fixedHead.utf8) + body) else { return nil }
        // The relay closes after its answer (Connection: close): read to the
        // end, whatever framing it used (Content-Length or chunked).
        var reader = HTTPStreamReader(fd: upstream)
        return reader.nextMessage(bodyToEndOfStream: true)
    }

    /// A sync page (Content-Length framed) with its messages in reverse order,
    /// or nil when it has fewer than two or is not such a page.
    static func reversedPage(_ body: [UInt8]) -> [UInt8]? {
        guard var page = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
              let messages = page["messages"] as? [Any], messages.count > 1 else { return nil }
        page["messages"] = Array(messages.reversed())
        return (try? JSONSerialization.data(withJSONObject: page)).map { [UInt8]($0) }
    }

    /// The bytes of the first `"envelope":"…"` value of a sync page.
    static func firstEnvelopeRange(in body: [UInt8]) -> Range<Int>? {
        let key = Array("\"envelope\":\"".utf8)
        guard body.count > key.count,
              let start = (0...(body.count - key.count)).first(where: { body[$0..<$0 + key.count].elementsEqual(key) }) else { return nil }
        let valueStart = start + key.count
        guard let end = body[valueStart...].firstIndex(of: UInt8(ascii: "\"")), end - valueStart > 8 else { return nil }
        return valueStart..<end
    }

    func stop() { connections.stop() }

    /// The listening socket's number (tests of the descriptors' ownership).
    var listenerNumber: Int32 { connections.listenerNumber }

    deinit { stop() }
}

/// Reads HTTP/1.1 messages (head, then a Content-Length body) off a socket.
struct HTTPStreamReader {
    struct Message {
        var head: String
        var body: [UInt8]
        var firstLine: String { head.components(separatedBy: "\r\n").first ?? "" }
    }

    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    mutating func nextMessage(bodyToEndOfStream: Bool = false) -> Message? {
        while true {
            if let (head, bodyStart, length) = Self.head(in: buffer, at: 0) {
                if bodyToEndOfStream {
                    while case let more = LoopbackSocket.readSome(fd), !more.isEmpty { buffer += more }
                    let message = Message(head: head, body: Array(buffer[bodyStart...]))
                    buffer = []
                    return message
                }
                if buffer.count >= bodyStart + length {
                    let message = Message(head: head, body: Array(buffer[bodyStart..<bodyStart + length]))
                    buffer.removeFirst(bodyStart + length)
                    return message
                }
            }
            let more = LoopbackSocket.readSome(fd)
            if more.isEmpty { return nil }
            buffer += more
        }
    }

    /// The message head starting at `offset` of `bytes` once it is complete:
    /// its text, where its body starts, and its Content-Length (0 without one).
    static func head(in bytes: [UInt8], at offset: Int) -> (head: String, bodyStart: Int, length: Int)? {
        let separator = Array("\r\n\r\n".utf8)
        guard bytes.count - offset >= separator.count,
              let end = (offset...(bytes.count - separator.count)).first(where: { bytes[$0..<$0 + separator.count].elementsEqual(separator) })
        else { return nil }
        let head = String(decoding: bytes[offset..<end + separator.count], as: UTF8.self)
        let length = head.lowercased().components(separatedBy: "\r\n")
            .first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        return (head, end + separator.count, length)
    }

    /// `head` with its Content-Length set to `length` and the connection
    /// closed after the answer (one request per upstream connection).
    static func withContentLength(_ head: String, _ length: Int) -> String {
        let lines = head.components(separatedBy: "\r\n").filter { line in
            let lowered = line.lowercased()
            return !line.isEmpty && !lowered.hasPrefix("content-length:") && !lowered.hasPrefix("connection:")
        }
        return (lines + ["Content-Length: \(length)", "Connection: close"]).joined(separator: "\r\n") + "\r\n\r\n"
    }
}
