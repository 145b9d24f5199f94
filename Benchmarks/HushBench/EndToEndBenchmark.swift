import AsyncHTTPClient
import Foundation
import HushCrypto
import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore
import HushSubprocess

/// `HushBench e2e [--messages N] [--history N]`:
/// 1. Latency send → relay → push → decrypt → stored, over N messages on
///    loopback with a real relay (SQCipher driver) and two real stores, beside
///    the raw relay path (deposit → push, no crypto, no store) in the same run.
/// 2. Wall time of `hush chats` on a home with a large history, split into
///    the passphrase unlock (Argon2id, moderate) and the rest.
enum EndToEndBenchmark {
    static func run(arguments: [String]) async throws {
        func option(_ name: String, _ fallback: Int) -> Int {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? fallback
        }
        let messages = option("--messages", 10_000)
        let history = option("--history", 100_000)
        try await latency(messages: messages)
        try await chatsWallTime(messages: history)
    }

    // MARK: Latency

    static func latency(messages: Int) async throws {
        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop() }
        let http = RelayBench.makeHTTPClient(connections: 8)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hush-e2e-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        func messenger(_ name: String) throws -> (Messenger, TimedTransport) {
            let store = try MessageStore(path: root.appendingPathComponent("\(name).db").path, key: SecureBytes(randomCount: 32))
            let transport = TimedTransport(RelayClientTransport(client: RelayClient(baseURL: relay.baseURL, httpClient: http)))
            return (Messenger(identity: IdentityKeyPair.generate(), store: store, transport: transport), transport)
        }
        let (alice, aliceTransport) = try messenger("alice"), (bob, bobTransport) = try messenger("bob")
        try await alice.register()
        try await bob.register()
        try await alice.addContact(name: "bob", address: bob.identity.address.description)
        // First contact: Bob never added Alice, so her warm-up is a message
        // request; accepting it sends her Bob's delivery credential, so the
        // timed messages are ordinary (credentialed) deposits that Bob stores
        // as received messages, not as further requests.
        try await alice.send(text: "warm-up", to: "bob")
        _ = try await bob.sync()
        guard let request = try await bob.messageRequests().first else { throw BenchError("the warm-up did not arrive as a message request") }
        try await bob.acceptRequest(name: request.contact.name, renameTo: "alice")
        _ = try await bob.sync()
        _ = try await alice.sync()

        let live = Task { await bob.runLive() }
        defer { live.cancel() }
        var events = bob.eventRecords.makeAsyncIterator()
        while let record = await events.next() { if case .connection(true) = record.event { break } }

        // Bob's events are watched beside the sends, so that when he stored a
        // message is read off his event, not off the moment Alice's send returned.
        let (stored, storedAt) = AsyncStream<(body: String, at: ContinuousClock.Instant)>.makeStream()
        let watcher = Task {
            while let record = await events.next() {
                if case let .received(message, _) = record.event { storedAt.yield((message.body, .now)) }
            }
            storedAt.finish()
        }
        defer { watcher.cancel() }
        var storedMessages = stored.makeAsyncIterator()

        var samples: [Double] = []
        var sends: [Double] = []
        var phases: [EndToEndPhases] = []
        samples.reserveCapacity(messages)
        sends.reserveCapacity(messages)
        phases.reserveCapacity(messages)
        _ = aliceTransport.take()
        _ = bobTransport.take()
        let clock = ContinuousClock()
        for index in 0..<messages {
            let body = "m\(index)"
            let start = clock.now
            try await alice.send(text: body, to: "bob")
            let sent = clock.now
            sends.append(RelayBench.seconds(since: start) * 1000)
            var storedAtBob = sent
            while let arrival = await storedMessages.next() {
                if arrival.body == body { storedAtBob = arrival.at; break }
            }
            samples.append(RelayBench.seconds(since: start) * 1000)
            phases.append(EndToEndPhases(start: start, sent: sent, stored: storedAtBob, done: clock.now,
                                         sender: aliceTransport.take(), receiver: bobTransport.take()))
        }
        samples.sort()

        // Baseline: the relay alone, deposit → push to a connected socket.
        let sender = try RelayBench.Identity(index: 900_001), receiver = try RelayBench.Identity(index: 900_002)
        _ = try await sender.enroll(baseURL: relay.baseURL, http: http)
        let receiverClient = try await receiver.enroll(baseURL: relay.baseURL, http: http)
        let socket = try await receiverClient.connectSocket()
        defer { Task { await socket.close() } }
        let depositor = RelayClient(baseURL: relay.baseURL, httpClient: http)
        var pushes = socket.events.makeAsyncIterator()
        var baseline: [Double] = []
        let envelope = [UInt8](repeating: 0xA5, count: 1_568)
        for index in 0..<min(messages, 2_000) {
            let start = clock.now
            _ = try await depositor.deposit(recipient: receiver.publicKey, envelope: envelope, requestID: "baseline-\(index)", credential: nil)
            while let event = await pushes.next() { if case .message = event { break } }
            baseline.append(RelayBench.seconds(since: start) * 1000)
        }
        baseline.sort()

        let p50 = RelayBench.percentile(samples, 0.50), p99 = RelayBench.percentile(samples, 0.99)
        let b50 = RelayBench.percentile(baseline, 0.50), b99 = RelayBench.percentile(baseline, 0.99)
        print("End-to-end latency on loopback (\(messages) messages, 1 at a time; SQLCipher relay and stores)")
        print("  path                                         p50 ms    p99 ms")
        print("  send → relay → push → decrypt → stored    \(pad(p50))  \(pad(p99))   target p99 ≤ 10 ms")
        print("  baseline: deposit → push (relay only)     \(pad(b50))  \(pad(b99))")
        print("  ratio Hush / relay-only                   \(pad(p50 / b50))× \(pad(p99 / b99))×")
        sends.sort()
        print("  of which the sender's send (seal, deposit, accepted)  p50 \(pad(RelayBench.percentile(sends, 0.50))), p99 \(pad(RelayBench.percentile(sends, 0.99))) ms")
        EndToEndPhases.printBreakdown(phases)
        live.cancel()
        try await http.shutdown()
    }

    // MARK: `hush chats` wall time

    static func chatsWallTime(messages: Int) async throws {
        guard let hush = RelayBench.siblingHush(skipping: "`hush chats` wall time") else { return }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hush-chats-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let directory = DataDirectory(path: home)
        try directory.create()
        let passphrase = SecureBytes(copying: Array("bench passphrase".utf8))
        let contents = KeystoreContents.generate(createdAt: UInt64(Date().timeIntervalSince1970))
        let keystore = KeystoreFile(directory: directory)
        try keystore.create(contents, passphrase: passphrase, cost: .moderate, force: false)
        try fill(MessageStore(path: directory.databasePath, key: contents.databaseKey), messages: messages, conversations: 100)

        func time(_ body: () throws -> Void) rethrows -> Double {
            let start = ContinuousClock.now
            try body()
            return RelayBench.seconds(since: start) * 1000
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HUSH_PASSPHRASE"] = "bench passphrase"
        environment["HUSH_TIMINGS"] = "1"
        /// Runs hush; returns the unlock time it reported on stderr (ms), if any.
        @discardableResult
        func runHush(_ arguments: [String]) throws -> Double? {
            let child = try Subprocess(hush, arguments, environment: environment, output: .nullDevice, errors: .pipe)
            let text = String(decoding: child.readErrorsToEnd(), as: UTF8.self)
            let ended = child.waitForExit()
            guard ended == .exited(0) else { throw BenchError("hush \(arguments.joined(separator: " ")) ended with \(ended)") }
            return text.range(of: "timing: unlock ").flatMap { Double(text[$0.upperBound...].prefix { $0.isNumber || $0 == "." }) }
        }
        let rounds = 5
        // Each run's "rest" is its wall time minus the unlock it measured itself.
        var totals: [Double] = [], rests: [Double] = [], unlocks: [Double] = []
        for _ in 0..<rounds {
            var unlockInProcess = 0.0
            let wall = try time { unlockInProcess = try runHush(["chats", "--home", home]) ?? 0 }
            totals.append(wall); unlocks.append(unlockInProcess); rests.append(wall - unlockInProcess)
        }
        let total = totals.sorted()[rounds / 2], unlock = unlocks.sorted()[rounds / 2], rest = rests.sorted()[rounds / 2]
        _ = passphrase
        let startup = try (0..<rounds).map { _ in try time { try runHush(["chats", "--help"]) } }.sorted()[rounds / 2]
        let query = try time {
            let store = try MessageStore(path: directory.databasePath, key: contents.databaseKey)
            _ = try store.conversations.list()
        }
        print("")
        print("`hush chats` on \(messages) messages in 100 conversations (median of \(rounds) runs)")
        print("  whole command                     \(pad(total)) ms")
        print("  passphrase unlock (Argon2id moderate) \(pad(unlock)) ms")
        print("  the rest (total − unlock, per run) \(pad(rest)) ms   target ≤ 50 ms")
        print("    of which process start + parse  \(pad(startup)) ms   (`hush chats --help`, baseline)")
        print("    open store + list, in-process   \(pad(query)) ms")
    }

    static func fill(_ store: MessageStore, messages: Int, conversations: Int) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var ids: [Int64] = []
        try store.write { store in
            for index in 0..<conversations {
                let key = SHA256.hash(Array("contact-\(index)".utf8))
                let contact = try store.contacts.add(name: "contact-\(index)", address: "hush1bench\(index)", identityKey: key, at: now)
                ids.append(try store.conversations.conversation(forContact: contact.id, title: contact.name, at: now))
            }
        }
        let batch = 5_000
        var written = 0
        while written < messages {
            let count = min(batch, messages - written)
            try store.write { store in
                _ = try store.messages.insert(contentsOf: (0..<count).map { offset in
                    let n = written + offset
                    return NewMessage(conversationId: ids[n % ids.count], serverId: Int64(n + 1), clientMessageId: "bench-\(n)",
                                      direction: n % 2 == 0 ? .incoming : .outgoing, sender: "x", body: "message number \(n) in the bench",
                                      status: .delivered, createdAt: now + Int64(n), relayTimestamp: now + Int64(n))
                })
            }
            written += count
        }
    }

    static func pad(_ value: Double) -> String {
        let text = RelayBench.format(value, 2)
        return String(repeating: " ", count: max(0, 8 - text.count)) + text
    }
}
