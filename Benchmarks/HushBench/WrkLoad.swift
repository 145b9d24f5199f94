import Foundation
import Glibc
import HushSubprocess

/// wrk, a C load generator (Debian's `wrk`), driving a relay child with
/// Benchmarks/wrk/relay.lua: figures comparable with other servers measured
/// the same way, from a generator that costs the machine far less than the
/// in-process Swift client does.
enum WrkLoad {
    struct Result {
        let requests: Int
        let seconds: Double
        let p50Millis: Double
        let p99Millis: Double
        let maxMillis: Double
        let non2xx: Int
        /// Connect, read and write errors.
        let socketErrors: Int
        /// wrk's timeout count: every 2 s, each connection whose request has
        /// waited longer than `timeoutSeconds` counts once (a stall of the
        /// whole server for 2 s or more counts once per connection).
        let timeouts: Int
        /// wrk's own CPU time (user + system), or the measured server's
        /// (`EjabberdBaseline`: the script reports it).
        let cpuSeconds: Double
        var rate: Double { Double(requests) / seconds }
        /// Requests answered 2xx: what the server accepted.
        var accepted: Int { requests - non2xx }
        var acceptedRate: Double { Double(accepted) / seconds }

        /// Parses a `wrk-result key=value …` line (Benchmarks/wrk/relay.lua,
        /// Benchmarks/ejabberd/send_message.lua; latencies in µs); `cpuSeconds` is
        /// the script's `cpu_micros` when it has one, else `cpuSeconds`.
        static func parse(_ line: Substring, cpuSeconds: Double = 0) throws -> Result {
            var fields: [String: Double] = [:]
            for pair in line.split(separator: " ").dropFirst() {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
            }
            func field(_ name: String) throws -> Double {
                guard let value = fields[name] else { throw BenchError("wrk's result line lacks \(name): \(line)") }
                return value
            }
            return Result(requests: Int(try field("requests")), seconds: try field("micros") / 1e6,
                          p50Millis: try field("p50") / 1000, p99Millis: try field("p99") / 1000, maxMillis: try field("max") / 1000,
                          non2xx: Int(try field("non2xx")), socketErrors: Int(try field("socket_errors")),
                          timeouts: Int(try field("timeouts")), cpuSeconds: fields["cpu_micros"].map { $0 / 1e6 } ?? cpuSeconds)
        }
    }

    /// wrk's own default: a request unanswered for 2 s counts as a timeout
    /// (the stalls issue 35 reported were counted so).
    static let timeoutSeconds = 2

    /// The wrk binary on $PATH, or nil (`make bench` installs it).
    static let executable: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/wrk" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Benchmarks/wrk/relay.lua, found from this file's place in the package.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("wrk/relay.lua").path

    /// Runs wrk against `baseURL` for `seconds` and parses the script's `wrk-result` line.
    static func run(baseURL: String, environment: [String: String], seconds: Int, threads: Int, connections: Int) throws -> Result {
        guard let executable else { throw BenchError("wrk is not installed (apt-get install wrk; `make bench` does it)") }
        // The relay children are still running, so the waited-for children's
        // CPU time grows by wrk's alone.
        let childrenBefore = childrenCPUSeconds()
        let wrk = try Subprocess(executable, ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--timeout", "\(timeoutSeconds)s", "-s", script, baseURL],
                                 environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
        let text = String(decoding: wrk.readOutputToEnd(), as: UTF8.self)
        let ended = wrk.waitForExit()
        guard ended == .exited(0), let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wrk-result ") }) else {
            throw BenchError("wrk failed (\(ended)): \(text.suffix(500))")
        }
        return try Result.parse(line, cpuSeconds: childrenCPUSeconds() - childrenBefore)
    }

    private static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
