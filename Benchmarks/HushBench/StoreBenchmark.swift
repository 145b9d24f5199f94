import Foundation
import HushCrypto
import HushStore

/// The message store on a generated history: ingest in batched transactions
/// (search index and summary triggers included), a history page of 50, the
/// conversation list and a full-text query, each on an SQLCipher-keyed
/// database and on the same library with no key, in the same run.
///
/// usage: HushBench store [--messages N] [--conversations N] [--batch N]
enum StoreBenchmark {
    struct Options {
        var messages = 1_000_000
        var conversations = 1_000
        var batch = 5_000

        init(_ arguments: [String]) throws {
            var iterator = arguments.makeIterator()
            while let argument = iterator.next() {
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

    struct Measurements {
        var ingestPerSecond = 0.0
        var history: [Double] = []
        var conversationList: [Double] = []
        var search: [Double] = []
        var searchHits = 0
        var fileBytes = 0
    }

    static func run(arguments: [String]) async throws {
        let options = try Options(arguments)
        print("\(options.messages) messages across \(options.conversations) conversations, batches of \(options.batch)")
        let encrypted = try measure(options, key: SecureBytes(randomCount: 32, storage: .guarded))
        let plain = try measure(options, key: nil)
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
        let start = clock.now
        var next = 0
        while next < options.messages {
            let end = min(next + options.batch, options.messages)
            try store.write { store in
                for i in next..<end {
                    try store.messages.insert(NewMessage(
                        conversationId: conversations[i % conversations.count], serverId: Int64(i + 1),
                        clientMessageId: "bench-\(i)", direction: i % 3 == 0 ? .outgoing : .incoming,
                        sender: i % 3 == 0 ? "me" : "peer", body: body(i, random: &random), status: i % 3 == 0 ? .sent : .delivered,
                        createdAt: 1_700_000_000_000 + Int64(i), relayTimestamp: 1_700_000_000_000 + Int64(i)))
                }
            }
            next = end
        }
        result.ingestPerSecond = Double(options.messages) / seconds(clock.now - start)
        try store.database.checkpoint()

        // History: a page of 50 before a random message of a random conversation.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let message = Int64.random(in: 1...Int64(options.messages), using: &generator)
            let conversation = conversations[Int(message - 1) % conversations.count]
            let began = clock.now
            let page = try store.messages.history(conversationId: conversation, before: message, limit: 50)
            result.history.append(milliseconds(clock.now - began))
            precondition(page.count <= 50)
        }
        for _ in 0..<200 {
            let began = clock.now
            let list = try store.conversations.list()
            result.conversationList.append(milliseconds(clock.now - began))
            precondition(list.count == conversations.count)
        }
        for _ in 0..<20 {
            let began = clock.now
            let hits = try store.messages.search("aurora tomorrow", limit: 20)
            result.search.append(milliseconds(clock.now - began))
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

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    static func printTable(encrypted: Measurements, plain: Measurements) {
        func row(_ name: String, _ e: Double, _ p: Double, _ unit: String, target: String) {
            let ratio = p == 0 ? 0 : e / p
            print(name.padding(toLength: 30, withPad: " ", startingAt: 0)
                  + String(format: "%14.3f %14.3f %8.2f  ", e, p, ratio) + unit.padding(toLength: 8, withPad: " ", startingAt: 0) + target)
        }
        print("metric".padding(toLength: 30, withPad: " ", startingAt: 0) + "     encrypted          plain  enc/pl  unit    target")
        row("ingest", encrypted.ingestPerSecond, plain.ingestPerSecond, "msg/s", target: ">= 50000 msg/s encrypted")
        row("history page of 50, p50", percentile(encrypted.history, 0.5), percentile(plain.history, 0.5), "ms", target: "")
        row("history page of 50, p99", percentile(encrypted.history, 0.99), percentile(plain.history, 0.99), "ms", target: "<= 1 ms")
        row("conversation list, p50", percentile(encrypted.conversationList, 0.5), percentile(plain.conversationList, 0.5), "ms", target: "<= 5 ms")
        row("conversation list, p99", percentile(encrypted.conversationList, 0.99), percentile(plain.conversationList, 0.99), "ms", target: "")
        row("full-text query, p50", percentile(encrypted.search, 0.5), percentile(plain.search, 0.5), "ms",
            target: "report (\(encrypted.searchHits) hits of 20)")
        row("database file", Double(encrypted.fileBytes) / 1_048_576, Double(plain.fileBytes) / 1_048_576, "MiB", target: "")
    }
}
