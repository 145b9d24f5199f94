import AsyncHTTPClient
import Foundation
import HushRelayClient

/// Receivers for the push benchmarks: `count` identities enrolled at a relay,
/// one socket each, noting when each envelope arrives. Envelope number i
/// starts with i as 8 big-endian bytes (`RelayBench.numberedEnvelope`).
final class PushReceivers: Sendable {
    let identities: [RelayBench.Identity]
    let connected: Int
    private let arrivals: Locked<[ContinuousClock.Instant?]>
    private let receivedCount = Locked(0)
    private let sockets = Locked<[RelaySocket]>([])

    /// `capacity`: how many numbered envelopes the run sends in all.
    init(relay: RelayBench.ChildRelay, count: Int, capacity: Int, http: HTTPClient) async throws {
        let identities = try (0..<count).map(RelayBench.Identity.init(index:))
        let enrolled = Locked<[Int: RelayClient]>([:])
        let base = relay.baseURL
        _ = try await RelayBench.concurrently(total: count, concurrency: 32, deadlineSeconds: 120) { index in
            let client = try await identities[index].enroll(baseURL: base, http: http)
            enrolled.withLock { $0[index] = client }
        }
        let arrivals = Locked([ContinuousClock.Instant?](repeating: nil, count: capacity))
        let receivedCount = self.receivedCount, sockets = self.sockets
        let opened = try await RelayBench.concurrently(total: count, concurrency: 50, deadlineSeconds: 120) { index in
            guard let client = enrolled.withLock({ $0[index] }) else { return }
            let socket = try await client.connectSocket()
            sockets.withLock { $0.append(socket) }
            Task {
                for await event in socket.events {
                    guard case let .message(message) = event, message.envelope.bytes.count >= 8 else { continue }
                    let now = ContinuousClock.now
                    let sequence = message.envelope.bytes.prefix(8).reduce(0) { $0 << 8 | Int($1) }
                    arrivals.withLock { if sequence < $0.count { $0[sequence] = now } }
                    receivedCount.withLock { $0 += 1 }
                }
            }
        }
        self.identities = identities
        self.arrivals = arrivals
        self.connected = opened.completed
        print("push: \(opened.completed) sockets connected in \(RelayBench.format(opened.seconds, 1)) s (relay RSS \(relay.residentBytes() / 1_048_576) MiB)")
        guard opened.completed > 0 else { throw BenchError("no socket connected") }
    }

    var received: Int { receivedCount.withLock { $0 } }

    /// Waits (10 s at most) until `count` envelopes arrived in all.
    func awaitReceived(_ count: Int) async throws {
        for _ in 0..<100 where received < count { try await Task.sleep(for: .milliseconds(100)) }
    }

    /// Milliseconds from `sent[i]` to envelope i's arrival, for the numbers in `range`, sorted.
    func latencies(_ range: Range<Int>, sent: [ContinuousClock.Instant?]) -> [Double] {
        let arrived = arrivals.withLock { $0 }
        return range.compactMap { index -> Double? in
            guard let start = sent[index], let end = arrived[index] else { return nil }
            let elapsed = end - start
            return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        }.sorted()
    }

    func close() async {
        for socket in sockets.withLock({ $0 }) { await socket.close() }
    }
}

extension RelayBench {
    /// A 512-byte envelope (above the smallest sealed envelope) starting with `number` as 8 big-endian bytes.
    static func numberedEnvelope(_ number: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(number).bigEndian, Array.init) + [UInt8](repeating: 0x5A, count: 504)
    }
}
