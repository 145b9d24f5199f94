import AsyncHTTPClient
import Foundation
import Glibc
import HushCrypto
import HushProtocol
import HushRelayClient
import HushSubprocess
import HushTesting
import NIOCore
import NIOSSL
import PostgresTestCluster
import Synchronization

/// Helpers for the relay load generator: a relay child process, bench
/// identities, bounded concurrent loops, percentiles, RSS.
enum RelayBench {
    /// A relay running as a child process of this benchmark binary (`HushBench relay serve …`).
    final class ChildRelay {
        private let process: Subprocess
        let port: Int
        let dataDirectory: String
        /// Serving https:// with a self-signed key made in `dataDirectory`.
        let tls: Bool

        /// `database` is the PostgreSQL URL for the `postgres` driver; with
        /// `pushTimes`, the child writes when it pushed each envelope to that
        /// file (`PushTimeLogHandler`).
        init(driver: String, database: String? = nil, tls: Bool = false, pushTimes: String? = nil) throws {
            self.tls = tls
            dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("hush-relay-bench-\(UUID().uuidString)").path
            process = try Subprocess(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path,
                                     ["relay", "serve", "--driver", driver, "--data", dataDirectory] + (database.map { ["--database", $0] } ?? [])
                                        + (tls ? ["--tls-self-signed"] : []) + (pushTimes.map { ["--push-times", $0] } ?? []))
            var seen = ""
            guard let line = process.readOutputLine(startingWith: "relay-bench listening on ", seen: &seen),
                  let found = Int(line.split(separator: " ").last ?? "") else {
                process.stop()
                throw BenchError("the relay child did not start")
            }
            port = found
        }

        var baseURL: String { "\(tls ? "https" : "http")://127.0.0.1:\(port)" }

        /// The relay's self-signed certificate (for a client that trusts exactly it).
        var certificateFile: String { dataDirectory + "/tls-certificate.pem" }

        /// Resident set size of the child, from /proc.
        func residentBytes() -> Int { RelayBench.residentBytes(pid: process.pid) }

        /// CPU time (user + system) the child has used so far, from /proc.
        func cpuSeconds() -> Double { RelayBench.cpuSeconds(pid: process.pid) }

        /// SIGTERM, then SIGKILL if it has not exited within `seconds`.
        func stop(seconds: Int = 10) {
            process.stop(grace: Double(seconds))
            try? FileManager.default.removeItem(atPath: dataDirectory)
        }
    }

    struct Identity: Sendable {
        let key: Ed25519.PrivateKey
        let signedPrekey: SignedPrekey
        let lastResortKEM: SignedPrekey
        var publicKey: [UInt8] { key.publicKey.rawRepresentation }

        init(index: Int) throws {
            let random = DeterministicRandom(seed: "relay-bench-\(index)")
            key = Ed25519.PrivateKey(using: random)
            signedPrekey = try SignedPrekey.sign(kind: .signedX25519, id: 1, publicKey: random.bytes(32), with: key)
            lastResortKEM = try SignedPrekey.sign(kind: .lastResortKEM, id: 2, publicKey: random.bytes(1184), with: key)
        }

        /// Registers and authenticates; returns a client holding the token.
        func enroll(baseURL: String, http: HTTPClient) async throws -> RelayClient {
            let client = RelayClient(baseURL: baseURL, httpClient: http)
            try await client.register(identity: key, signedPrekey: signedPrekey, lastResortKEMPrekey: lastResortKEM, oneTimePrekeys: [])
            try await client.authenticate(identity: key)
            return client
        }
    }

    static func makeHTTPClient(connections: Int, tls: TLSConfiguration? = nil) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.tlsConfiguration = tls
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// TLS that trusts exactly the certificate in `file` (a TLS relay child's
    /// self-signed one), without name checks: as a client with a pinned URL.
    static func trustingOnly(_ file: String) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file))
        tls.certificateVerification = .noHostnameVerification
        return tls
    }

    /// Runs `body(i)` for i in 0..<total with `concurrency` workers, stopping
    /// early at `deadline`. Returns how many completed and the elapsed seconds.
    static func concurrently(total: Int, concurrency: Int, deadlineSeconds: Double,
                             _ body: @escaping @Sendable (Int) async throws -> Void) async throws -> (completed: Int, seconds: Double) {
        let next = Locked(0)
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int(deadlineSeconds * 1000))
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var done = 0
                    while ContinuousClock.now < deadline {
                        let index = next.withLock { value -> Int in defer { value += 1 }; return value }
                        guard index < total else { break }
                        try await body(index)
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        return (completed, seconds(since: start))
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }

    /// `field` "VmHWM:" gives the process's peak instead.
    static func residentBytes(pid: Int32, field: String = "VmRSS:") -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes * 1024
    }

    /// CPU time (user + system) of process `pid`: fields 14 and 15 of /proc/PID/stat, in clock ticks.
    static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU time (user + system) of this process: the load generator's own cost.
    static func selfCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// CPU time (user + system) of each process in `pids` that still runs.
    static func cpuSnapshot(pids: [Int32]) -> [Int32: Double] {
        Dictionary(pids.map { ($0, cpuSeconds(pid: $0)) }, uniquingKeysWith: { first, _ in first })
    }

    /// CPU seconds spent between two snapshots by the processes of the later
    /// one (a process that started between them counts whole; one that ended
    /// loses what it spent after the first).
    static func cpuSpent(from before: [Int32: Double], to after: [Int32: Double]) -> Double {
        after.reduce(0) { total, entry in total + max(0, entry.value - (before[entry.key] ?? 0)) }
    }

    /// What a measured run cost: the relay instances' CPU seconds together, the
    /// load generator's, and the database server's (PostgreSQL only, else 0).
    struct Metered<T> {
        let result: T
        let relayCPU: Double
        let loadCPU: Double
        let databaseCPU: Double
    }

    /// Runs `body` and reports, beside its result, the CPU seconds the relays,
    /// the load generator and the database server (`databaseCPU`, a snapshot
    /// per process, read before and after) spent during it.
    static func metered<T>(_ relays: [ChildRelay], databaseCPU: () -> [Int32: Double] = { [:] },
                           _ body: () async throws -> T) async rethrows -> Metered<T> {
        func relaysCPU() -> Double { relays.reduce(0) { $0 + $1.cpuSeconds() } }
        let relayStart = relaysCPU(), loadStart = selfCPUSeconds(), databaseStart = databaseCPU()
        let result = try await body()
        return Metered(result: result, relayCPU: relaysCPU() - relayStart, loadCPU: selfCPUSeconds() - loadStart,
                       databaseCPU: cpuSpent(from: databaseStart, to: databaseCPU()))
    }

    /// Relay instances sharing one fresh database on the throwaway PostgreSQL
    /// cluster (`scripts/postgres-test-cluster`, started once per run and
    /// stopped when the benchmark exits).
    struct PostgresInstances {
        let relays: [ChildRelay]

        init(count: Int, label: String) async throws {
            let url = try await PostgresTestCluster.freshDatabase("bench_" + label)
            var started: [ChildRelay] = []
            do {
                for _ in 0..<count { started.append(try ChildRelay(driver: "postgres", database: url)) }
            } catch {
                started.forEach { $0.stop() }
                throw error
            }
            relays = started
        }

        /// CPU seconds of each of the PostgreSQL server's processes (postmaster and backends) so far.
        static func serverCPU() -> [Int32: Double] { RelayBench.cpuSnapshot(pids: PostgresTestCluster.serverProcessIDs()) }

        func stop() { relays.forEach { $0.stop() } }
    }

    /// Raises this process's open-file limit to its hard limit (children inherit it).
    static func raiseFileLimit() -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(limit.rlim_cur)
    }

    /// The `hush` binary built beside this benchmark (same configuration), for
    /// the suites that time the real command; nil, after saying the suite is
    /// skipped, when it has not been built.
    static func siblingHush(skipping label: String) -> String? {
        let hush = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("hush").path
        guard FileManager.default.isExecutableFile(atPath: hush) else {
            print("\(label): skipped (build the hush binary in the same configuration: `swift build -c release --product hush`)")
            return nil
        }
        return hush
    }

    static func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A mutex-protected value that closures can share (a `Mutex` itself cannot be captured).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { value in body(&value) }
    }
}
