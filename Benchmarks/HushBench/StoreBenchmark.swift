import Foundation
import HushCrypto
import HushStore

/// The message store on a generated history: ingest in batched transactions
/// (search index and conversation summaries included; the messages are made
/// before each batch's clock starts), a history page of 50, the
/// conversation list and a full-text query, each on an SQLCipher-keyed
/// database and on the same library with no key, in the same run.
///
/// Each figure is given in wall time and in CPU time: the machine is shared,
/// so wall-time tails mostly measure other processes, while CPU time counts
/// only this process's work (fsync waits excluded): the thread's own for
/// reads, the whole process's for ingest (checkpoints run on another thread).
///
/// usage: HushBench store [--messages N] [--conversations N] [--batch N] [--only encrypted|plain]
enum StoreBenchmark {
    struct Options {
        var messages = 1_000_000
        var conversations = 1_000
        var batch = 5_000
        var encrypted = true
        var plain = true

        init(_ arguments: [String]) throws {
            var iterator = arguments.makeIterator()
            while let argument = iterator.next() {
                if argument == "--only" {
                    switch iterator.next() {
                    case "encrypted": plain = false
                    case "plain": encrypted = false
                    default: throw BenchmarkError.usage("--only takes encrypted or plain")
                    }
                    continue
                }
                guard let value = iterator.next().flatMap(Int.init), value > 0 else {
                    throw BenchmarkError.usage("\(argument) needs a positive number")
                }
                switch argument {
                case "--messages": messages = value
                case "--conversations": conversations = value
                case "--batch": batch = value
                default: throw BenchmarkError.usage("unknown option \(argument)")
                }
            }
        }
    }

    enum BenchmarkError: Error { case usage(String) }

    /// Latencies of one operation, in milliseconds.
    struct Samples {
        var wall: [Double] = []
        var cpu: [Double] = []
    }

    struct Measurements {
        var ingestPerSecond = 0.0
        var ingestPerCPUSecond = 0.0
        var history = Samples()
        var conversationList = Samples()
        var search = Samples()
        var searchHits = 0
        var fileBytes = 0
    }

    static func run(arguments: [String]) async throws {
        let options = try Options(arguments)
        print("\(options.messages) messages across \(options.conversations) conversations, batches of \(options.batch)")
        let encrypted = options.encrypted ? try measure(options, key: SecureBytes(randomCount: 32, storage: .guarded)) : Measurements()
        let plain = options.plain ? try measure(options, key: nil) : Measurements()
        printTable(encrypted: encrypted, plain: plain)
    }

    static let words = ["hello", "tomorrow", "lunch", "meeting", "coffee", "train", "late", "see", "you", "soon", "thanks",
                        "project", "review", "weekend", "call", "later", "photo", "dinner", "tonight", "great", "idea",
                        "ok", "sure", "where", "when", "why", "how", "what", "maybe", "never", "always", "station"]

    static func body(_ i: Int, random: inout UInt64) -> String {
        var parts: [String] = []
        let count = 4 + Int(random % 12)
        for _ in 0..<count {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            parts.append(words[Int((random >> 33) % UInt64(words.count))])
        }
        if i % 997 == 0 { parts.append("aurora") }   // a rare word for the search query
        return parts.joined(separator: " ")
    }

    static func measure(_ options: Options, key: SecureBytes?) throws -> Measurements {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hush-bench-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("messages.db").path
        var result = Measurements()
        let store = try MessageStore(path: path, key: key)
        let conversations = try store.write { store in
            try (0..<options.conversations).map { try store.conversations.create(title: "chat \($0)", at: 0) }
        }

        var random: UInt64 = 42
        let clock = ContinuousClock()
        var ingestWall = Duration.zero
        var ingestCPU = 0.0
        var next = 0
        while next < options.messages {
            let end = min(next + options.batch, options.messages)
            // The batch is made before the clock starts: only the store's
            // work (SQL, search index, summaries, encryption, commit) is timed.
            let batch = (next..<end).map { i in
                NewMessage(conversationId: conversations[i % conversations.count], serverId: Int64(i + 1),
                           clientMessageId: "bench-\(i)", direction: i % 3 == 0 ? .outgoing : .incoming,
                           sender: i % 3 == 0 ? "me" : "peer", body: body(i, random: &random), status: i % 3 == 0 ? .sent : .delivered,
                           createdAt: 1_700_000_000_000 + Int64(i), relayTimestamp: 1_700_000_000_000 + Int64(i))
            }
            let began = clock.now, beganCPU = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
            try store.write { store in
                for message in batch { try store.messages.insert(message) }
            }
            ingestCPU += cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - beganCPU
            ingestWall += clock.now - began
            next = end
        }
        result.ingestPerSecond = Double(options.messages) / seconds(ingestWall)
        result.ingestPerCPUSecond = Double(options.messages) / ingestCPU
        try store.database.checkpoint()

        /// Times `body` into `samples`, in wall and thread CPU milliseconds.
        func time<T>(_ samples: inout Samples, _ body: () throws -> T) rethrows -> T {
            let began = clock.now
            let beganCPU = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
            let value = try body()
            samples.cpu.append((cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - beganCPU) * 1000)
            samples.wall.append(milliseconds(clock.now - began))
            return value
        }

        // History: a page of 50 before a random message of a random
        // conversation. Message ids are assigned in insertion order from 1.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let message = Int64.random(in: 1...Int64(options.messages), using: &generator)
            let conversation = conversations[Int(message - 1) % conversations.count]
            let page = try time(&result.history) {
                try store.messages.history(conversationId: conversation, before: message, limit: 50)
            }
            precondition(page.count <= 50 && page.allSatisfy { $0.conversationId == conversation })
        }
        for _ in 0..<200 {
            let list = try time(&result.conversationList) { try store.conversations.list() }
            precondition(list.count == conversations.count)
        }
        for _ in 0..<20 {
            let hits = try time(&result.search) { try store.messages.search("aurora tomorrow", limit: 20) }
            result.searchHits = hits.count
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        result.fileBytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
        return result
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func milliseconds(_ duration: Duration) -> Double { seconds(duration) * 1000 }

    /// CPU time of the calling thread (SQLite runs on it), in seconds.
    /// CPU seconds by `clock`: the calling thread's (SQLite runs on it) for
    /// reads; the whole process's for ingest, whose WAL checkpoints run on a
    /// thread of their own and are the ingest's cost too.
    static func cpuSeconds(_ clock: clockid_t) -> Double {
        var now = timespec()
        clock_gettime(clock, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    static func printTable(encrypted: Measurements, plain: Measurements) {
        func row(_ name: String, _ e: Double, _ p: Double, _ unit: String, target: String = "") {
            let ratio = p == 0 ? 0 : e / p
            print(name.padding(toLength: 34, withPad: " ", startingAt: 0)
                  + String(format: "%14.3f %14.3f %8.2f  ", e, p, ratio) + unit.padding(toLength: 8, withPad: " ", startingAt: 0) + target)
        }
        func latency(_ name: String, _ e: Samples, _ p: Samples, target: String = "") {
            row("\(name), p50 wall", percentile(e.wall, 0.5), percentile(p.wall, 0.5), "ms")
            row("\(name), p99 wall", percentile(e.wall, 0.99), percentile(p.wall, 0.99), "ms", target: target)
            row("\(name), p50 cpu", percentile(e.cpu, 0.5), percentile(p.cpu, 0.5), "ms")
            row("\(name), p99 cpu", percentile(e.cpu, 0.99), percentile(p.cpu, 0.99), "ms", target: target)
        }
        print("metric".padding(toLength: 34, withPad: " ", startingAt: 0) + "     encrypted          plain  enc/pl  unit    target")
        row("ingest (wall)", encrypted.ingestPerSecond, plain.ingestPerSecond, "msg/s", target: ">= 50000 msg/s encrypted")
        row("ingest (per cpu second)", encrypted.ingestPerCPUSecond, plain.ingestPerCPUSecond, "msg/s", target: ">= 50000 msg/s encrypted")
        latency("history page of 50", encrypted.history, plain.history, target: "<= 1 ms")
        latency("conversation list", encrypted.conversationList, plain.conversationList, target: "<= 5 ms")
        latency("full-text query", encrypted.search, plain.search, target: "report (\(encrypted.searchHits) hits of 20)")
        row("database file", Double(encrypted.fileBytes) / 1_048_576, Double(plain.fileBytes) / 1_048_576, "MiB")
    }
}
