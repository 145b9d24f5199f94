import AsyncHTTPClient
import Foundation
import HushRelayClient

/// The paced push measurement common for messaging servers (used for XMPP
/// servers): `receivers` sockets connected, deposits from `senders` clients
/// at a fixed rate, open loop (each deposit starts at its scheduled time
/// whether or not earlier ones were answered, so a slow relay cannot slow
/// the load down and hide its own latency), latency from a deposit's start to
/// its push arriving. Then rising rates, for the highest one the relay holds
/// with p99 ≤ 20 ms.
extension RelayBenchmark {
    struct PacedRun {
        let latencies: [Double]
        let failed: Int
        /// How late the generator started deposits against their schedule, p99 (ms).
        let lagP99: Double
    }

    static func pacedPush(relay: RelayBench.ChildRelay, receivers count: Int, senders: Int, messages: Int, rate: Int,
                          steps: [Int], stepSeconds: Int, http: HTTPClient) async throws {
        let capacity = messages + steps.reduce(0) { $0 + $1 * stepSeconds }
        let receivers = try await PushReceivers(relay: relay, count: count, capacity: capacity, http: http)
        let clients = (0..<senders).map { _ in RelayClient(baseURL: relay.baseURL, httpClient: http) }
        let sent = Locked([ContinuousClock.Instant?](repeating: nil, count: capacity))
        var next = 0
        func paced(_ total: Int, at rate: Int) async throws -> PacedRun {
            let first = next
            next += total
            let run = try await send(first: first, total: total, rate: rate, clients: clients, receivers: receivers, sent: sent)
            try await receivers.awaitReceived(next - run.failed)
            return PacedRun(latencies: receivers.latencies(first..<(first + total), sent: sent.withLock { $0 }),
                            failed: run.failed, lagP99: run.lagP99)
        }
        func describe(_ run: PacedRun, _ total: Int) -> String {
            "\(run.latencies.count)/\(total) pushes received, \(run.failed) deposits failed; "
                + "deposit→push p50 \(RelayBench.format(RelayBench.percentile(run.latencies, 0.5), 2)) ms, "
                + "p99 \(RelayBench.format(RelayBench.percentile(run.latencies, 0.99), 2)) ms, max \(RelayBench.format(run.latencies.last ?? .nan, 1)) ms; "
                + "generator lag p99 \(RelayBench.format(run.lagP99, 2)) ms"
        }
        let main = try await paced(messages, at: rate)
        let p99 = RelayBench.percentile(main.latencies, 0.99)
        print("paced push [sqlcipher], \(receivers.connected) receivers, \(senders) senders, \(messages) messages at \(rate)/s: "
              + describe(main, messages) + " — target p99 ≤ 2 ms " + (p99 <= 2 ? "met" : "MISSED"))
        var sustained: Int?
        for stepRate in steps {
            let total = stepRate * stepSeconds
            let step = try await paced(total, at: stepRate)
            let stepP99 = RelayBench.percentile(step.latencies, 0.99)
            let held = step.failed == 0 && step.latencies.count == total && stepP99 <= 20
            print("paced push [sqlcipher] at \(stepRate)/s for \(stepSeconds) s: " + describe(step, total) + (held ? "" : " — not held"))
            guard held else { break }
            sustained = stepRate
        }
        print("paced push [sqlcipher]: highest rate held with p99 ≤ 20 ms and nothing lost: "
              + (sustained.map { "\($0)/s" } ?? "none of \(steps.map(String.init).joined(separator: ", "))/s"))
        await receivers.close()
    }

    /// Deposits envelopes numbered first ..< first+total at `rate` per second,
    /// round robin over `clients` and the receivers, each started on schedule.
    private static func send(first: Int, total: Int, rate: Int, clients: [RelayClient], receivers: PushReceivers,
                             sent: Locked<[ContinuousClock.Instant?]>) async throws -> (failed: Int, lagP99: Double) {
        let failed = Locked(0)
        var lags: [Double] = []
        lags.reserveCapacity(total)
        let start = ContinuousClock.now + .milliseconds(50)
        let interval = Duration.nanoseconds(1_000_000_000 / Int64(max(1, rate)))
        await withTaskGroup(of: Void.self) { group in
            for offset in 0..<total {
                let scheduled = start + interval * offset
                if ContinuousClock.now < scheduled { try? await Task.sleep(until: scheduled, clock: .continuous) }
                let now = ContinuousClock.now
                let late = now - scheduled
                lags.append(Double(late.components.seconds) * 1000 + Double(late.components.attoseconds) / 1e15)
                let index = first + offset
                let client = clients[offset % clients.count]
                let recipient = receivers.identities[offset % receivers.connected].publicKey
                group.addTask {
                    sent.withLock { $0[index] = ContinuousClock.now }
                    do {
                        _ = try await client.deposit(recipient: recipient, envelope: RelayBench.numberedEnvelope(index),
                                                     requestID: "paced-\(index)", credential: nil)
                    } catch {
                        failed.withLock { $0 += 1 }
                    }
                }
            }
        }
        return (failed.withLock { $0 }, RelayBench.percentile(lags.sorted(), 0.99))
    }
}
