import AsyncHTTPClient
import Foundation
import HushCrypto
import HushRelay
import HushRelayAPI
import HushRelayClient
import Logging
import NIOCore
import Synchronization

/// Relay load on loopback, the relay in a child process (`HushBench relay serve`):
///  1. deposit throughput, in-memory driver and SQLCipher driver, each beside
///     the same number of `GET /v1/health` requests (baseline);
///  2. deposit-to-push latency p50/p99 with 1,000 connected sockets, beside
///     the deposit's own HTTP round trip;
///  3. the relay's RSS with 10,000 idle sockets (bytes per connection).
/// Options: --deposits N (20000) --concurrency N (64) --clients N (1000)
///          --pushes N (2000) --idle N (10000) --only throughput,push,idle
///          --drivers memory,sqlcipher. Every loop is bounded in count and time.
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
        let phases = Set(text("--only", "throughput,push,idle").split(separator: ",").map(String.init))
        let drivers = text("--drivers", "memory,sqlcipher").split(separator: ",").map(String.init)
        let http = RelayBench.makeHTTPClient(connections: concurrency)
        do {
            if phases.contains("throughput") {
                for driver in drivers {
                    try await throughput(driver: driver, requests: deposits, concurrency: concurrency, http: http)
                }
            }
            if phases.contains("push") {
                try await pushLatency(clients: option("--clients", 1_000), pushes: option("--pushes", 2_000), http: http)
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
    static func throughput(driver: String, requests: Int, concurrency: Int, http: HTTPClient) async throws {
        let relay = try RelayBench.ChildRelay(driver: driver)
        defer { relay.stop() }
        let base = relay.baseURL
        let recipient = try RelayBench.Identity(index: 0)
        _ = try await recipient.enroll(baseURL: base, http: http)
        let client = RelayClient(baseURL: base, httpClient: http)
        // Warm-up: connections and code paths.
        _ = try await RelayBench.concurrently(total: concurrency * 4, concurrency: concurrency, deadlineSeconds: 30) { _ in _ = try await client.health() }
        let health = try await RelayBench.metered(relay) {
            try await RelayBench.concurrently(total: requests, concurrency: concurrency, deadlineSeconds: 60) { _ in
                _ = try await client.health()
            }
        }
        let envelope = [UInt8](repeating: 0xA5, count: 1_024)
        let binary = try await RelayBench.metered(relay) {
            try await RelayBench.concurrently(total: requests, concurrency: concurrency, deadlineSeconds: 60) { index in
                _ = try await client.deposit(recipient: recipient.publicKey, envelope: envelope, requestID: "bench-\(index)", credential: nil)
            }
        }
        let path = RelayPaths.mailboxMessages(recipient.publicKey)
        let json = try await RelayBench.metered(relay) {
            try await RelayBench.concurrently(total: requests, concurrency: concurrency, deadlineSeconds: 60) { index in
                let body = try JSONEncoder().encode(DepositRequest(requestID: "json-\(index)", envelope: Base64Bytes(envelope), credential: nil))
                let answer = try await client.send(.POST, path, body: ByteBuffer(bytes: body), contentType: "application/json")
                guard answer.status == 201 else { throw BenchError("JSON deposit answered \(answer.status)") }
            }
        }
        func line(_ name: String, _ run: (result: (completed: Int, seconds: Double), relayCPU: Double, loadCPU: Double)) -> (rate: Double, cpu: Double) {
            let rate = Double(run.result.completed) / run.result.seconds
            let relayMicros = run.relayCPU / Double(max(1, run.result.completed)) * 1e6
            let loadMicros = run.loadCPU / Double(max(1, run.result.completed)) * 1e6
            print("throughput [\(driver)] \(name): \(RelayBench.format(rate, 0))/s (\(run.result.completed) in \(RelayBench.format(run.result.seconds, 2)) s); "
                  + "relay CPU \(RelayBench.format(relayMicros, 1)) µs/request (\(RelayBench.format(1e6 / relayMicros, 0))/s per relay core), "
                  + "load generator CPU \(RelayBench.format(loadMicros, 1)) µs/request")
            return (rate, relayMicros)
        }
        let base0 = line("GET /v1/health", health)
        let binaryRate = line("deposit 1 KiB binary", binary)
        let jsonRate = line("deposit 1 KiB JSON", json)
        print("throughput [\(driver)] ratios to health: binary deposit/health = \(RelayBench.format(binaryRate.rate / base0.rate, 2)) by rate, "
              + "\(RelayBench.format(base0.cpu / binaryRate.cpu, 2)) by relay CPU; JSON deposit/health = \(RelayBench.format(jsonRate.rate / base0.rate, 2)) by rate, "
              + "\(RelayBench.format(base0.cpu / jsonRate.cpu, 2)) by relay CPU; relay RSS \(relay.residentBytes() / 1_048_576) MiB")
    }

    // MARK: 2. Push latency

    static func pushLatency(clients: Int, pushes: Int, http: HTTPClient) async throws {
        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop() }
        let base = relay.baseURL
        let identities = try (0..<clients).map(RelayBench.Identity.init(index:))
        let enrolled = Locked<[Int: RelayClient]>([:])
        _ = try await RelayBench.concurrently(total: clients, concurrency: 32, deadlineSeconds: 120) { index in
            let client = try await identities[index].enroll(baseURL: base, http: http)
            enrolled.withLock { $0[index] = client }
        }
        let arrivals = Locked([ContinuousClock.Instant?](repeating: nil, count: pushes))
        let received = Locked(0)
        let sockets = Locked<[RelaySocket]>([])
        let connected = try await RelayBench.concurrently(total: clients, concurrency: 50, deadlineSeconds: 120) { index in
            guard let client = enrolled.withLock({ $0[index] }) else { return }
            let socket = try await client.connectSocket()
            sockets.withLock { $0.append(socket) }
            Task {
                for await event in socket.events {
                    guard case let .message(message) = event, message.envelope.bytes.count >= 8 else { continue }
                    let now = ContinuousClock.now
                    let sequence = message.envelope.bytes.prefix(8).reduce(0) { $0 << 8 | Int($1) }
                    arrivals.withLock { if sequence < $0.count { $0[sequence] = now } }
                    received.withLock { $0 += 1 }
                }
            }
        }
        print("push: \(connected.completed) sockets connected in \(RelayBench.format(connected.seconds, 1)) s (relay RSS \(relay.residentBytes() / 1_048_576) MiB)")
        let sender = RelayClient(baseURL: base, httpClient: http)
        let sent = Locked([ContinuousClock.Instant?](repeating: nil, count: pushes))
        let answered = Locked([Double](repeating: .nan, count: pushes))
        let run = try await RelayBench.concurrently(total: pushes, concurrency: 4, deadlineSeconds: 60) { index in
            let recipient = identities[index % connected.completed]
            var envelope = withUnsafeBytes(of: UInt64(index).bigEndian, Array.init)
            envelope += [UInt8](repeating: 0x5A, count: 248)
            let start = ContinuousClock.now
            sent.withLock { $0[index] = start }
            _ = try await sender.deposit(recipient: recipient.publicKey, envelope: envelope, requestID: "push-\(index)", credential: nil)
            let roundTrip = RelayBench.seconds(since: start) * 1000
            answered.withLock { $0[index] = roundTrip }
        }
        for _ in 0..<100 where received.withLock({ $0 }) < run.completed { try await Task.sleep(for: .milliseconds(100)) }
        let sentTimes = sent.withLock { $0 }, arrivalTimes = arrivals.withLock { $0 }
        var latencies: [Double] = []
        for index in 0..<pushes {
            guard let start = sentTimes[index], let end = arrivalTimes[index] else { continue }
            let elapsed = end - start
            latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        latencies.sort()
        let roundTrips = answered.withLock { $0 }.filter { !$0.isNaN }.sorted()
        print("push latency with \(connected.completed) sockets: \(latencies.count)/\(run.completed) pushes received; "
              + "deposit→push p50 \(RelayBench.format(RelayBench.percentile(latencies, 0.5), 2)) ms, p99 \(RelayBench.format(RelayBench.percentile(latencies, 0.99), 2)) ms; "
              + "baseline deposit HTTP round trip p50 \(RelayBench.format(RelayBench.percentile(roundTrips, 0.5), 2)) ms, p99 \(RelayBench.format(RelayBench.percentile(roundTrips, 0.99), 2)) ms; "
              + "p99 ratio push/round-trip \(RelayBench.format(RelayBench.percentile(latencies, 0.99) / RelayBench.percentile(roundTrips, 0.99), 2))")
        for socket in sockets.withLock({ $0 }) { await socket.close() }
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
              + "\(after / 1_048_576) MiB after; \(RelayBench.format(perConnection / 1024, 1)) KiB per idle connection")
    }

    // MARK: The relay child

    /// `HushBench relay serve --driver memory|sqlcipher --data DIR`: a relay on
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
        // The attachment benchmark's 256 MiB file, padded.
        configuration.maxBlobBytes = 4 << 30
        configuration.blobQuota = BlobQuota(maxBytes: 16 << 30, maxCount: 1_000_000)
        var logger = Logger(label: "relay-bench")
        logger.logLevel = .error
        let server: RelayServer
        if option("--driver") == "memory" {
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
