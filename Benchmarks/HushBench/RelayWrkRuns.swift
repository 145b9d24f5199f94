import AsyncHTTPClient
import Foundation
import HushRelayAPI

/// The relay benchmark's wrk phase on one relay: wrk's health baseline, then
/// rounds of 512-byte binary deposits to 1,000 mailboxes (a unique request id
/// each), each round printed with its accepted rate, latencies, timeouts and
/// the relay's CPU per deposit; then the tail check over every round (issue
/// 35: no request over 100 ms and 0 timeouts).
extension RelayBenchmark {
    /// What the phase measured on one relay.
    struct WrkFigures {
        /// Relay CPU µs per health request (the baseline) and per deposit (median over the rounds).
        let healthMicros: Double
        let depositMicros: Double
        /// Deposits answered 2xx per second, median over the rounds.
        let acceptedRate: Double
        let p50Millis: Double
        let rounds: Int
        let depositSeconds: Int
        static let none = WrkFigures(healthMicros: 0, depositMicros: 0, acceptedRate: 0, p50Millis: 0, rounds: 0, depositSeconds: 0)
    }

    /// The tail target of issue 35, for every round together.
    static let tailLimitMillis = 100.0

    /// Health for `healthSeconds`, then `rounds` deposit rounds of `depositSeconds`
    /// each, one relay throughout (its database grows round after round).
    /// Returns `.none` when wrk is missing.
    @discardableResult
    static func wrkLoad(label: String, relay: RelayBench.ChildRelay, databaseCPU: (() -> [Int32: Double])? = nil,
                        healthSeconds: Int, depositSeconds: Int, rounds: Int = 1, connections: Int, http: HTTPClient) async throws -> WrkFigures {
        guard WrkLoad.executable != nil else {
            print("wrk [\(label)]: skipped, wrk is not installed (apt-get install wrk; `make bench` installs it)")
            return .none
        }
        let mailboxes = 1_000
        let paths = Locked([String](repeating: "", count: mailboxes))
        let base = relay.baseURL
        _ = try await RelayBench.concurrently(total: mailboxes, concurrency: 32, deadlineSeconds: 120) { index in
            let identity = try RelayBench.Identity(index: 20_000 + index)
            _ = try await identity.enroll(baseURL: base, http: http)
            paths.withLock { $0[index] = RelayPaths.mailboxMessages(identity.publicKey) }
        }
        let pathFile = relay.dataDirectory + "-wrk-paths"
        try paths.withLock { $0.joined(separator: "\n") + "\n" }.write(toFile: pathFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: pathFile) }
        let envelope = [UInt8](repeating: 0xA5, count: 512)
        let digest = Data(EnvelopeDigest.of(envelope)).base64EncodedString()
        func measure(_ environment: [String: String], seconds: Int) async throws -> RelayBench.Metered<WrkLoad.Result> {
            try await RelayBench.metered([relay], databaseCPU: databaseCPU ?? { [:] }) {
                try WrkLoad.run(baseURL: relay.baseURL, environment: environment, seconds: seconds, threads: 2, connections: connections)
            }
        }
        func microsPerRequest(_ run: RelayBench.Metered<WrkLoad.Result>) -> Double { run.relayCPU / Double(max(1, run.result.requests)) * 1e6 }
        func describe(_ run: RelayBench.Metered<WrkLoad.Result>) -> String {
            let result = run.result, completed = Double(max(1, result.requests))
            let latency = "p50 \(RelayBench.format(result.p50Millis, 2)) ms, p99 \(RelayBench.format(result.p99Millis, 2)) ms, "
                + "max \(RelayBench.format(result.maxMillis, 1)) ms"
            let database = databaseCPU == nil ? "" : ", PostgreSQL server CPU \(RelayBench.format(run.databaseCPU / completed * 1e6, 1)) µs/request"
            return "\(RelayBench.format(result.acceptedRate, 0)) accepted/s; \(latency); \(result.timeouts) timeouts, "
                + "\(result.socketErrors) socket errors, \(result.non2xx) non-2xx; relay CPU \(RelayBench.format(microsPerRequest(run), 1)) µs/request"
                + database + ", wrk CPU \(RelayBench.format(result.cpuSeconds / completed * 1e6, 1)) µs/request"
        }

        let health = try await measure(["HUSH_WRK_MODE": "health"], seconds: healthSeconds)
        print("wrk [\(label)] GET /v1/health, -t2 -c\(connections), \(healthSeconds) s: \(describe(health))")
        var runs: [RelayBench.Metered<WrkLoad.Result>] = []
        for round in 1...max(1, rounds) {
            let environment = ["HUSH_WRK_MODE": "deposit", "HUSH_WRK_PATHS": pathFile, "HUSH_WRK_ENVELOPE_BYTES": "512",
                               "HUSH_WRK_DIGEST": digest, "HUSH_WRK_RUN": UUID().uuidString.prefix(8).lowercased()]
            let run = try await measure(environment, seconds: depositSeconds)
            runs.append(run)
            print("wrk [\(label)] deposit 512 B binary, round \(round)/\(max(1, rounds)), -t2 -c\(connections), \(depositSeconds) s: \(describe(run))")
        }

        let healthMicros = microsPerRequest(health)
        let depositMicros = median(runs.map(microsPerRequest))
        let rates = runs.map(\.result.acceptedRate)
        let worst = runs.enumerated().max { $0.element.result.maxMillis < $1.element.result.maxMillis }!
        let timeouts = runs.reduce(0) { $0 + $1.result.timeouts }
        let socketErrors = runs.reduce(0) { $0 + $1.result.socketErrors }
        let held = runs.allSatisfy { $0.result.maxMillis <= tailLimitMillis && $0.result.timeouts == 0 }
        print("wrk [\(label)] tail over \(runs.count) deposit round(s) of \(depositSeconds) s: worst max \(RelayBench.format(worst.element.result.maxMillis, 1)) ms "
              + "(round \(worst.offset + 1)), worst p99 \(RelayBench.format(runs.map(\.result.p99Millis).max() ?? 0, 2)) ms, \(timeouts) timeouts, "
              + "\(socketErrors) socket errors in all; target no request over \(RelayBench.format(tailLimitMillis, 0)) ms and 0 timeouts: "
              + (held ? "held" : "NOT held"))
        print("wrk [\(label)] deposits: median \(RelayBench.format(median(rates), 0)) accepted/s (\(RelayBench.format(rates.min() ?? 0, 0))–"
              + "\(RelayBench.format(rates.max() ?? 0, 0))); relay CPU per deposit \(RelayBench.format(depositMicros, 1)) µs (median) / per health request "
              + "\(RelayBench.format(healthMicros, 1)) µs = \(RelayBench.format(depositMicros / healthMicros, 2)) (target ≤ 2.5)")
        return WrkFigures(healthMicros: healthMicros, depositMicros: depositMicros, acceptedRate: median(rates),
                          p50Millis: median(runs.map(\.result.p50Millis)), rounds: runs.count, depositSeconds: depositSeconds)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
