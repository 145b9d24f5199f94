/// Where one timed message of the e2e suite spent its time, from the
/// instants the bench and `TimedTransport` noted: Alice's send until her
/// deposit left (seal and its synced commit, the outbox read), the deposit
/// until the relay's 201 (HTTP, the relay's synced commit), what her send
/// did after the 201 (the sent mark, the outbox's second pass), and on
/// Bob's side when his live loop took the push and when his event said the
/// message was stored.
struct EndToEndPhases: Sendable {
    let start: ContinuousClock.Instant
    /// Alice's `send` returned.
    let sent: ContinuousClock.Instant
    /// Bob's `received` event came.
    let stored: ContinuousClock.Instant
    /// Both: what the suite's headline latency measures.
    let done: ContinuousClock.Instant
    let sender: TimedTransport.Log
    let receiver: TimedTransport.Log

    /// One phase: its name, and how long it took in this message (ms), nil
    /// when an instant it needs was not noted (a push that fell back to a sync).
    typealias Phase = (name: String, duration: @Sendable (EndToEndPhases) -> Double?)

    static let phases: [Phase] = [
        ("sender: seal + synced commit, to the deposit", { $0.ms($0.start, $0.sender.depositStarts.first) }),
        ("sender: deposit until the relay's 201", { $0.ms($0.sender.depositStarts.first, $0.sender.depositEnds.first) }),
        ("relay: deposit start → push taken by Bob", { $0.ms($0.sender.depositStarts.first, $0.receiver.pushesTaken.first) }),
        ("receiver: push taken → decrypted, stored", { $0.ms($0.receiver.pushesTaken.first, $0.stored) }),
        ("sender: after the 201 until send returns", { $0.ms($0.sender.depositEnds.first, $0.sent) }),
        ("send → stored at Bob", { $0.ms($0.start, $0.stored) }),
        ("send → both done (the headline)", { $0.ms($0.start, $0.done) }),
    ]

    private func ms(_ from: ContinuousClock.Instant?, _ to: ContinuousClock.Instant?) -> Double? {
        guard let from, let to else { return nil }
        let elapsed = to - from
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 1000
    }

    /// Prints each phase's p50, p99 and mean, and its mean over the slowest
    /// 1 % of messages (by the headline), which says where the p99 goes.
    static func printBreakdown(_ messages: [EndToEndPhases]) {
        guard !messages.isEmpty, let headline = phases.last else { return }
        let totals = messages.map { headline.duration($0) ?? 0 }
        let cut = RelayBench.percentile(totals.sorted(), 0.99)
        let slowest = messages.indices.filter { totals[$0] >= cut }.map { messages[$0] }
        print("  where the time goes (ms)                       p50      p99     mean   mean of slowest 1 %")
        for phase in phases {
            let all = messages.compactMap(phase.duration).sorted()
            let tail = slowest.compactMap(phase.duration)
            let name = phase.name + String(repeating: " ", count: max(0, 44 - phase.name.count))
            print("  \(name)\(pad(RelayBench.percentile(all, 0.50))) \(pad(RelayBench.percentile(all, 0.99))) \(pad(mean(all)))   \(pad(mean(tail)))")
        }
    }

    private static func mean(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }
    private static func pad(_ value: Double) -> String { EndToEndBenchmark.pad(value) }
}
