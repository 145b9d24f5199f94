import AsyncHTTPClient
import Foundation
import HushCrypto
import HushRelay
import HushRelayAPI
import HushRelayClient
import HushRelayPostgres
import Logging
import NIOCore
import Synchronization

/// Relay load on loopback, the relay in a child process (`HushBench relay serve`):
///  1. deposit throughput, in-memory, SQLCipher and PostgreSQL drivers (the
///     last with one and with two instances sharing the database, the load
///     split between them), each beside the same number of `GET /v1/health`
///     requests (baseline); relay CPU per request, and PostgreSQL's own;
///  2. deposit-to-push latency p50/p99 with 1,000 connected sockets, beside
///     the deposit's own HTTP round trip: SQLCipher, then PostgreSQL with the
///     deposit on the receivers' instance and on the other one (the push
///     crosses instances through LISTEN/NOTIFY);
///  3. paced push (PacedPushBenchmark.swift): 1,000 receivers, 10 senders,
///     20,000 messages at 1,000/s, open loop; then rising rates for the
///     highest one held with p99 ≤ 20 ms (SQLCipher);
///  4. the relay's RSS with 10,000 idle sockets (bytes per connection);
///  5. wrk (`-t2 -c64`, RelayWrkRuns.swift): health, then 512-byte binary
///     deposits to 1,000 mailboxes, per driver (PostgreSQL with one instance):
///     rate, p50/p99/max, timeouts, relay CPU per request; the SQLCipher
///     driver's deposits in --wrk-runs rounds of --wrk-tail-seconds, with the
///     tail check (no request over 100 ms, 0 timeouts), then ejabberd 23.01
///     under the same wrk (EjabberdBaseline.swift, --ejabberd-runs rounds);
///  6. what TLS costs (RelayTLSCost.swift): the SQLCipher relay over plain
///     HTTP and over TLS with its self-signed key, the same load on each
///     (in-process client and wrk over kept-alive connections).
/// PostgreSQL runs on a throwaway cluster (scripts/postgres-test-cluster), a
/// fresh database per measurement, or on `$HUSH_TEST_POSTGRES_URL`'s.
/// Options: --deposits N (20000) --concurrency N (64) --clients N (1000)
///          --pushes N (2000) --paced-messages N (20000) --paced-rate N (1000) --idle N (10000)
///          --wrk-seconds N (20) --wrk-connections N (64) --wrk-runs N (10) --wrk-tail-seconds N (40) --ejabberd-runs N (3) --only throughput,push,paced,idle,wrk,tls --drivers memory,sqlcipher,postgres. Every loop is bounded in count and time.
enum RelayBenchmark {
    static func run(arguments: [String]) async throws {
        if arguments.first == "serve" { return try await serve(Array(arguments.dropFirst())) }
        func option(_ name: String, _ fallback: Int) -> Int {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? fallback
        }
        func text(_ name: String, _ fallback: String) -> String {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil } ?? fallback
        }
        let fileLimit = RelayBench.raiseFileLimit()
        print("cores: \(ProcessInfo.processInfo.activeProcessorCount), open-file limit: \(fileLimit); relay and load generator share the machine")
        let deposits = option("--deposits", 20_000), concurrency = option("--concurrency", 64)
        let phases = Set(text("--only", "throughput,push,paced,idle,wrk,tls").split(separator: ",").map(String.init))
        let drivers = text("--drivers", "memory,sqlcipher,postgres").split(separator: ",").map(String.init)
        let http = RelayBench.makeHTTPClient(connections: concurrency)
        do {
            if phases.contains("throughput") {
                var figures: [(label: String, binary: DepositFigures)] = []
                for driver in drivers {
                    if driver == "postgres" {
                        for count in [1, 2] {
                            let instances = try await RelayBench.PostgresInstances(count: count, label: "throughput\(count)")
                            defer { instances.stop() }
                            let label = "postgres ×\(count)"
                            figures.append((label, try await throughput(label: label, relays: instances.relays,
                                                                        databaseCPU: RelayBench.PostgresInstances.serverCPU,
                                                                        requests: deposits, concurrency: concurrency, http: http)))
                        }
                    } else {
                        let relay = try RelayBench.ChildRelay(driver: driver)
                        defer { relay.stop() }
                        figures.append((driver, try await throughput(label: driver, relays: [relay], requests: deposits,
                                                                     concurrency: concurrency, http: http)))
                    }
                }
                if let baseline = figures.first(where: { $0.label == "sqlcipher" })?.binary {
                    for (label, figure) in figures where label != "sqlcipher" {
                        print("throughput [\(label)] beside sqlcipher, binary deposits: \(RelayBench.format(figure.rate / baseline.rate, 2))× the rate, "
                              + "\(RelayBench.format(figure.relayMicros / baseline.relayMicros, 2))× the relay CPU per deposit, "
                              + "\(RelayBench.format((figure.relayMicros + figure.databaseMicros) / baseline.relayMicros, 2))× with the database server's CPU")
                    }
                }
            }
            if phases.contains("push") {
                let clients = option("--clients", 1_000), pushes = option("--pushes", 2_000)
                if drivers.contains("sqlcipher") {
                    let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
                    defer { relay.stop() }
                    try await pushLatency(receivers: relay, depositing: [("sqlcipher", relay)], clients: clients, pushes: pushes, http: http)
                }
                if drivers.contains("postgres") {
                    let instances = try await RelayBench.PostgresInstances(count: 2, label: "push")
                    defer { instances.stop() }
                    // Receivers' sockets on instance B; deposits first on B itself, then on A.
                    try await pushLatency(receivers: instances.relays[1],
                                          depositing: [("postgres, same instance", instances.relays[1]),
                                                       ("postgres, across instances", instances.relays[0])],
                                          clients: clients, pushes: pushes, http: http)
                }
            }
            if phases.contains("paced") {
                let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
                defer { relay.stop() }
                try await pacedPush(relay: relay, receivers: option("--clients", 1_000), senders: 10, messages: option("--paced-messages", 20_000),
                                    rate: option("--paced-rate", 1_000), steps: [1_000, 2_000, 4_000, 8_000], stepSeconds: 5, http: http)
            }
            if phases.contains("wrk") {
                let seconds = option("--wrk-seconds", 20), connections = option("--wrk-connections", 64)
                // The SQLCipher driver's deposits: the tail check of issue 35 (rounds × seconds).
                let tailRounds = option("--wrk-runs", 10), tailSeconds = option("--wrk-tail-seconds", 40)
                var sqlcipher: WrkFigures?
                for driver in drivers {
                    if driver == "postgres" {
                        let instances = try await RelayBench.PostgresInstances(count: 1, label: "wrk")
                        defer { instances.stop() }
                        try await wrkLoad(label: "postgres ×1", relay: instances.relays[0], databaseCPU: RelayBench.PostgresInstances.serverCPU,
                                          healthSeconds: seconds, depositSeconds: seconds, connections: connections, http: http)
                    } else {
                        let relay = try RelayBench.ChildRelay(driver: driver)
                        defer { relay.stop() }
                        let tail = driver == "sqlcipher"
                        let figures = try await wrkLoad(label: driver, relay: relay, healthSeconds: seconds, depositSeconds: tail ? tailSeconds : seconds,
                                                        rounds: tail ? tailRounds : 1, connections: connections, http: http)
                        if tail { sqlcipher = figures }
                    }
                }
                // After the relays have stopped, so the two never share the machine.
                if let sqlcipher, sqlcipher.rounds > 0 {
                    try EjabberdBaseline.compare(relay: sqlcipher, label: "sqlcipher", seconds: tailSeconds, connections: connections,
                                                 runs: option("--ejabberd-runs", 3))
                }
            }
            if phases.contains("tls") {
                try await tlsCost(requests: deposits, concurrency: concurrency,
                                  wrkSeconds: option("--wrk-seconds", 20), wrkConnections: option("--wrk-connections", 64))
            }
            if phases.contains("idle") {
                try await idleMemory(connections: min(option("--idle", 10_000), max(0, fileLimit / 2 - 200)), http: http)
            }
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    // MARK: 1. Throughput

    /// Health (baseline), then deposits in the binary form (what `RelayClient`
    /// sends) and in the JSON form, each with the CPU time the relay and the
    /// load generator spent per request: on a shared machine the relay's CPU
    /// per request is the steadier figure, and 1 / it is the rate one
    /// dedicated core would sustain.
    /// `relays` are one instance, or several sharing a database; request i
    /// goes to instance i mod count, and the CPU figures add up every instance.
    /// What the binary deposits of one throughput run gave.
    struct DepositFigures {
        let rate: Double
        let relayMicros: Double
        let databaseMicros: Double
    }

    static func throughput(label: String, relays: [RelayBench.ChildRelay], databaseCPU: (() -> [Int32: Double])? = nil,
                           requests: Int, concurrency: Int, http: HTTPClient) async throws -> DepositFigures {
        let recipient = try RelayBench.Identity(index: 0)
        _ = try await recipient.enroll(baseURL: relays[0].baseURL, http: http)
        let clients = relays.map { RelayClient(baseURL: $0.baseURL, httpClient: http) }
        @Sendable func client(_ index: Int) -> RelayClient { clients[index % clients.count] }
        func measure<T>(_ body: () async throws -> T) async rethrows -> RelayBench.Metered<T> {
            try await RelayBench.metered(relays, databaseCPU: databaseCPU ?? { [:] }, body)
        }
        // Warm-up: connections and code paths.
        _ = try await RelayBench.concurrently(total: concurrency * 4, concurrency: concurrency, deadlineSeconds: 30) { _ = try await client($0).health() }
        let health = try await measure {
            try await RelayBench.concurrently(total: requests, concurrency: concurrency, deadlineSeconds: 60) { index in
                _ = try await client(index).health()
            }
        }
        let envelope = [UInt8](repeating: 0xA5, count: 1_024)
        let binary = try await measure {
            try await RelayBench.concurrently(total: requests, concurrency: concurrency, deadlineSeconds: 60) { index in
                _ = try await client(index).deposit(recipient: recipient.publicKey, envelope: envelope, requestID: "bench-\(index)", credential: nil)
            }
        }
        let path = RelayPaths.mailboxMessages(recipient.publicKey)
        let json = try await measure {
            try await RelayBench.concurrently(total: requests, concurrency: concurrency, deadlineSeconds: 60) { index in
                let body = try JSONEncoder().encode(DepositRequest(requestID: "json-\(index)", envelope: Base64Bytes(envelope), credential: nil))
                let answer = try await client(index).send(.POST, path, body: ByteBuffer(bytes: body), contentType: "application/json")
                guard answer.status == 201 else { throw BenchError("JSON deposit answered \(answer.status)") }
            }
        }
        func line(_ name: String, _ run: RelayBench.Metered<(completed: Int, seconds: Double)>) -> (rate: Double, cpu: Double) {
            let completed = Double(max(1, run.result.completed))
            let rate = Double(run.result.completed) / run.result.seconds
            let relayMicros = run.relayCPU / completed * 1e6
            let loadMicros = run.loadCPU / completed * 1e6
            let database = databaseCPU == nil ? "" : "PostgreSQL server CPU \(RelayBench.format(run.databaseCPU / completed * 1e6, 1)) µs/request, "
            print("throughput [\(label)] \(name): \(RelayBench.format(rate, 0))/s (\(run.result.completed) in \(RelayBench.format(run.result.seconds, 2)) s); "
                  + "relay CPU \(RelayBench.format(relayMicros, 1)) µs/request (\(RelayBench.format(1e6 / relayMicros, 0))/s per relay core), "
                  + database + "load generator CPU \(RelayBench.format(loadMicros, 1)) µs/request")
            return (rate, relayMicros)
        }
        let base0 = line("GET /v1/health", health)
        let binaryRate = line("deposit 1 KiB binary", binary)
        let jsonRate = line("deposit 1 KiB JSON", json)
        let resident = relays.reduce(0) { $0 + $1.residentBytes() }
        print("throughput [\(label)] ratios to health: binary deposit/health = \(RelayBench.format(binaryRate.rate / base0.rate, 2)) by rate, "
              + "\(RelayBench.format(base0.cpu / binaryRate.cpu, 2)) by relay CPU; JSON deposit/health = \(RelayBench.format(jsonRate.rate / base0.rate, 2)) by rate, "
              + "\(RelayBench.format(base0.cpu / jsonRate.cpu, 2)) by relay CPU; relay RSS \(resident / 1_048_576) MiB")
        return DepositFigures(rate: binaryRate.rate, relayMicros: binaryRate.cpu,
                              databaseMicros: binary.databaseCPU / Double(max(1, binary.result.completed)) * 1e6)
    }

    // MARK: 2. Push latency

    /// `clients` receivers connect their sockets to `receivers`; then, for each
    /// entry of `depositing` in turn, `pushes` deposits go to that instance
    /// (the same relay, or another instance on the same database).
    static func pushLatency(receivers relay: RelayBench.ChildRelay, depositing targets: [(label: String, relay: RelayBench.ChildRelay)],
                            clients: Int, pushes: Int, http: HTTPClient) async throws {
        // Round r sends envelopes numbered r·pushes ..< (r+1)·pushes.
        let total = pushes * targets.count
        let receivers = try await PushReceivers(relay: relay, count: clients, capacity: total, http: http)
        let sent = Locked([ContinuousClock.Instant?](repeating: nil, count: total))
        let answered = Locked([Double](repeating: .nan, count: total))
        var expected = 0
        for (round, target) in targets.enumerated() {
            let sender = RelayClient(baseURL: target.relay.baseURL, httpClient: http)
            let first = round * pushes
            let run = try await RelayBench.concurrently(total: pushes, concurrency: 4, deadlineSeconds: 60) { offset in
                let index = first + offset
                let recipient = receivers.identities[offset % receivers.connected]
                let start = ContinuousClock.now
                sent.withLock { $0[index] = start }
                _ = try await sender.deposit(recipient: recipient.publicKey, envelope: RelayBench.numberedEnvelope(index),
                                             requestID: "push-\(index)", credential: nil)
                let roundTrip = RelayBench.seconds(since: start) * 1000
                answered.withLock { $0[index] = roundTrip }
            }
            expected += run.completed
            try await receivers.awaitReceived(expected)
            let latencies = receivers.latencies(first..<(first + pushes), sent: sent.withLock { $0 })
            let roundTrips = answered.withLock { Array($0[first..<(first + pushes)]) }.filter { !$0.isNaN }.sorted()
            print("push latency [\(target.label)] with \(receivers.connected) sockets: \(latencies.count)/\(run.completed) pushes received; "
                  + "deposit→push p50 \(RelayBench.format(RelayBench.percentile(latencies, 0.5), 2)) ms, p99 \(RelayBench.format(RelayBench.percentile(latencies, 0.99), 2)) ms; "
                  + "baseline deposit HTTP round trip p50 \(RelayBench.format(RelayBench.percentile(roundTrips, 0.5), 2)) ms, p99 \(RelayBench.format(RelayBench.percentile(roundTrips, 0.99), 2)) ms; "
                  + "p99 ratio push/round-trip \(RelayBench.format(RelayBench.percentile(latencies, 0.99) / RelayBench.percentile(roundTrips, 0.99), 2))")
        }
        await receivers.close()
    }

    // MARK: 3. Idle memory

    static func idleMemory(connections: Int, http: HTTPClient) async throws {
        guard connections > 0 else {
            print("idle memory: skipped (open-file limit too low)")
            return
        }
        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop(seconds: 5) }
        let base = relay.baseURL
        let perIdentity = RelayLimits.maxSocketsPerIdentity
        let identityCount = (connections + perIdentity - 1) / perIdentity
        let enrolled = Locked<[Int: RelayClient]>([:])
        let enrollment = try await RelayBench.concurrently(total: identityCount, concurrency: 32, deadlineSeconds: 180) { index in
            let client = try await RelayBench.Identity(index: 10_000 + index).enroll(baseURL: base, http: http)
            enrolled.withLock { $0[index] = client }
        }
        try await Task.sleep(for: .seconds(1))
        let before = relay.residentBytes()
        let sockets = Locked<[RelaySocket]>([])
        let opened = try await RelayBench.concurrently(total: min(connections, enrollment.completed * perIdentity), concurrency: 100,
                                                       deadlineSeconds: 180) { index in
            guard let client = enrolled.withLock({ $0[index / perIdentity] }) else { return }
            let socket = try await client.connectSocket()
            sockets.withLock { $0.append(socket) }
        }
        try await Task.sleep(for: .seconds(3))
        let after = relay.residentBytes()
        let count = sockets.withLock { $0.count }
        let perConnection = count > 0 ? Double(after - before) / Double(count) : .nan
        print("idle memory: \(count) sockets open (\(RelayBench.format(opened.seconds, 1)) s to open); relay RSS \(before / 1_048_576) MiB before, "
              + "\(after / 1_048_576) MiB after; \(RelayBench.format(perConnection / 1024, 1)) KiB per idle connection (target ≤ 20 KiB)")
    }

    // MARK: The relay child

    /// `HushBench relay serve --driver memory|sqlcipher|postgres --data DIR [--database URL]`: a relay on
    /// a free loopback port with rate limits and quotas opened up for load.
    static func serve(_ arguments: [String]) async throws {
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        var configuration = RelayConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = option("--data") ?? FileManager.default.temporaryDirectory.appendingPathComponent("hush-relay-bench").path
        configuration.rateLimits = .unlimited
        configuration.mailboxQuotaCount = 10_000_000
        configuration.mailboxQuotaBytes = Int.max / 2
        // Every socket and connection of the load comes from 127.0.0.1.
        configuration.connectionLimits.maxConnectionsPerAddress = 1_000_000
        configuration.connectionLimits.maxConnections = 1_000_000
        // The attachment benchmark's 256 MiB file, padded.
        configuration.maxBlobBytes = 4 << 30
        configuration.blobQuota = BlobQuota(maxBytes: 16 << 30, maxCount: 1_000_000)
        if arguments.contains("--tls-self-signed") {
            try RelayDataDirectory(path: configuration.dataDirectory).prepare()
            configuration.tls = try RelayTLS.selfSigned(in: configuration.dataDirectory)
        }
        var logger = Logger(label: "relay-bench")
        logger.logLevel = .error
        if let path = option("--push-times") {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw BenchError("cannot open \(path): \(String(cString: strerror(errno)))") }
            logger = Logger(label: "relay-bench") { _ in PushTimeLogHandler(descriptor: descriptor) }
        }
        let server: RelayServer
        if option("--driver") == "postgres" {
            guard let database = option("--database") else { throw BenchError("the postgres driver needs --database URL") }
            server = try await RelayServer.onPostgres(try PostgresURL(database), configuration: configuration, logger: logger)
        } else if option("--driver") == "memory" {
            let directory = RelayDataDirectory(path: configuration.dataDirectory)
            try directory.prepare()
            server = RelayServer(core: RelayCore(configuration: configuration, storage: RelayStorage(InMemoryRelayStorage()),
                                                 blobs: BlobStore(directory: directory.blobDirectory), logger: logger))
        } else {
            server = try RelayServer.embedded(configuration: configuration, logger: logger)
        }
        let app = server.makeApplication { port in
            FileHandle.standardOutput.write(Data("relay-bench listening on \(port)\n".utf8))
        }
        try await app.runService()
    }
}
