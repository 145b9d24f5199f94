import Foundation
import HushSubprocess

/// ejabberd 23.01 (Debian's package) under the relay's wrk shape, run by
/// Benchmarks/ejabberd/ejabberd-bench.sh: a throwaway instance on loopback,
/// 512-byte chat messages through mod_http_api's send_message to 1,000
/// offline users, each stored by mod_offline (ejabberd's mailbox). The
/// script counts what mod_offline really holds afterwards, so a baseline
/// that answered without storing cannot pass for a fast one.
enum EjabberdBaseline {
    struct Figures {
        let runs: [WrkLoad.Result]
        /// Requests answered 2xx over every run, and offline messages stored after them.
        let answered2xx: Int
        let stored: Int
        /// Accepted per second, median over the runs, counting only what was
        /// stored: scaled down by stored / answered 2xx when some went missing.
        var acceptedRate: Double {
            let share = answered2xx > 0 ? min(1, Double(stored) / Double(answered2xx)) : 0
            return RelayBenchmark.median(runs.map(\.acceptedRate)) * share
        }
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ejabberd/ejabberd-bench.sh").path

    /// Runs the script (installing ejabberd first when it is absent and this
    /// runs as root); nil, after printing why, when it is skipped.
    static func run(seconds: Int, connections: Int, runs: Int) throws -> Figures? {
        let baseline = try Subprocess("/bin/bash", [script, "\(seconds)", "\(connections)", "\(runs)"])
        let lines = String(decoding: baseline.readOutputToEnd(), as: UTF8.self).split(separator: "\n")
        let ended = baseline.waitForExit()
        if let skipped = lines.first(where: { $0.hasPrefix("ejabberd-skipped ") }) {
            print("ejabberd baseline: skipped, \(skipped.dropFirst("ejabberd-skipped ".count))")
            return nil
        }
        guard ended == .exited(0),
              let stored = lines.first(where: { $0.hasPrefix("ejabberd-stored ") }) else {
            print("ejabberd baseline: skipped, the script failed (\(ended)): \(lines.suffix(3).joined(separator: " / "))")
            return nil
        }
        let results = try lines.filter { $0.hasPrefix("wrk-result ") }.map { try WrkLoad.Result.parse($0) }
        var counts: [String: Int] = [:]
        for pair in stored.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
        }
        guard let answered = counts["sent2xx"], let held = counts["stored"], !results.isEmpty else {
            throw BenchError("the ejabberd script's output lacks its results: \(stored)")
        }
        return Figures(runs: results, answered2xx: answered, stored: held)
    }

    /// Runs the baseline and prints it beside the relay's figures from the same run.
    static func compare(relay: RelayBenchmark.WrkFigures, label: String, seconds: Int, connections: Int, runs: Int) throws {
        guard runs > 0 else {
            print("ejabberd baseline: skipped (--ejabberd-runs 0)")
            return
        }
        guard let figures = try run(seconds: seconds, connections: connections, runs: runs) else { return }
        for (index, result) in figures.runs.enumerated() {
            let cpuMicros = result.cpuSeconds / Double(max(1, result.requests)) * 1e6
            print("wrk [ejabberd 23.01] send_message 512 B to an offline user, round \(index + 1)/\(figures.runs.count), -t2 -c\(connections), "
                  + "\(seconds) s: \(RelayBench.format(result.acceptedRate, 0)) accepted/s; p50 \(RelayBench.format(result.p50Millis, 2)) ms, "
                  + "p99 \(RelayBench.format(result.p99Millis, 2)) ms, max \(RelayBench.format(result.maxMillis, 1)) ms; \(result.timeouts) timeouts, "
                  + "\(result.socketErrors) socket errors, \(result.non2xx) non-2xx; ejabberd CPU \(RelayBench.format(cpuMicros, 1)) µs/request")
        }
        let missing = figures.answered2xx - figures.stored
        print("wrk [ejabberd 23.01] mod_offline holds \(figures.stored) messages of \(figures.answered2xx) answered 2xx"
              + (missing == 0 ? " (every one stored)"
                 : missing > 0 ? " (\(missing) fewer: the accepted rate counts only the stored share)"
                 : " (\(-missing) more: requests wrk gave up on after 2 s were stored too)"))
        let ejabberdMicros = RelayBenchmark.median(figures.runs.map { $0.cpuSeconds / Double(max(1, $0.requests)) * 1e6 })
        print("wrk [\(label)] beside ejabberd 23.01, same wrk shape, same run: \(RelayBench.format(relay.acceptedRate, 0)) against "
              + "\(RelayBench.format(figures.acceptedRate, 0)) accepted/s (medians of \(relay.rounds) and \(figures.runs.count) rounds) = "
              + "\(RelayBench.format(relay.acceptedRate / figures.acceptedRate, 2))× (target ≥ 5×); p50 \(RelayBench.format(relay.p50Millis, 2)) against "
              + "\(RelayBench.format(RelayBenchmark.median(figures.runs.map(\.p50Millis)), 2)) ms; server CPU per stored message "
              + "\(RelayBench.format(relay.depositMicros, 1)) against \(RelayBench.format(ejabberdMicros, 1)) µs")
    }
}
