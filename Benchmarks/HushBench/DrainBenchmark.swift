import AsyncHTTPClient
import Foundation
import HushCrypto
import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore

/// `HushBench drain [--messages 1000,10000] [--history 13000] [--after-history 3000] [--perf FILE]`:
/// coming back online (issue 35, item 4). Bob deposits N messages to Alice
/// while she is offline; then Alice runs the release `hush sync` as a
/// process (what a user runs: unlock, fetch, decrypt, store, acknowledge,
/// receipts), on a real relay (SQLCipher driver) on loopback. Measured from
/// outside: wall time, the process's own CPU (wait4) and peak RSS (VmHWM), the
/// envelopes it posted back to Bob (receipts). Also on a history of
/// `--history` messages already in the conversation, to show whether the
/// cost per message depends on the history.
///
/// Baselines from the same run, for the two things a drain cannot avoid:
/// - the wire: fetching the very same N envelopes from the same relay, pages
///   of 100 (`RelayClientTransport.fetch`, what the drain calls), without
///   acknowledging them;
/// - the store: inserting N plaintext rows into a SQLCipher store, 100 per
///   transaction (the drain's page), with no crypto or protocol at all.
/// Their sum is the floor of a drain; the ratio says what the rest costs.
///
/// With `--perf FILE`, `hush sync` runs under `perf record -g -o FILE.N`
/// (one file per case): for finding the hot spots, not for the figures.
enum DrainBenchmark {
    /// Issue 35, item 4: 10,000 messages in ≤ 5 s end to end.
    static let targetMillisecondsPerMessage = 0.5
    static let targetPeakMiB = 100.0

    static func run(arguments: [String]) async throws {
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        let backlogs = (option("--messages") ?? "1000,10000").split(separator: ",").compactMap { Int($0) }
        let history = option("--history").flatMap(Int.init) ?? 13_000
        let afterHistory = option("--after-history").flatMap(Int.init) ?? 3_000
        let perf = option("--perf")
        guard let hush = RelayBench.siblingHush(skipping: "drain") else { return }
        print("Offline drain: Bob deposits N messages while Alice is offline, then Alice runs `hush sync`")
        print("(the \(URL(fileURLWithPath: hush).deletingLastPathComponent().lastPathComponent) binary as a process; SQLCipher relay on loopback;"
              + " keystore at Argon2id interactive; targets from issue 35 item 4)")
        var cases = backlogs.map { (backlog: $0, history: 0) }
        if history > 0 { cases.append((afterHistory, history)) }
        var perMessage: [(label: String, milliseconds: Double)] = []
        for entry in cases {
            let result = try await drain(hush: hush, backlog: entry.backlog, history: entry.history,
                                         perf: perf.map { "\($0).\(entry.backlog)-\(entry.history)" })
            perMessage.append(("N = \(entry.backlog), history \(entry.history)", result))
        }
        print("")
        print("Flatness: (wall − unlock) per message, each case")
        for entry in perMessage { print("  \(entry.label.padding(toLength: 30, withPad: " ", startingAt: 0)) \(ms(entry.milliseconds)) ms") }
    }

    /// Alice's home for a drain, made elsewhere (`largeaccount`'s large home): its path and passphrase.
    struct ExistingHome {
        let path: String
        let passphrase: String
        /// What the report calls it, e.g. "2,000 conversations, 1,000,000 messages".
        let label: String
    }

    /// One case on a fresh relay and a fresh pair, or with `existing`, on a
    /// copy of that home (Alice's account there, registered on this relay,
    /// Bob a new contact). Returns the drain's wall time less the unlock,
    /// per message, in milliseconds.
    static func drain(hush: String, backlog: Int, history: Int, perf: String?, existing: ExistingHome? = nil) async throws -> Double {
        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop() }
        let http = RelayBench.makeHTTPClient(connections: 4)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hush-drain-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        let passphrase = existing?.passphrase ?? "drain bench passphrase"
        let home: DataDirectory, contents: KeystoreContents, aliceIdentity: IdentityKeyPair
        if let existing {
            // A copy: the drain adds a contact and 10,000 messages, and the home may be kept for other runs.
            let copy = root.appendingPathComponent("alice").path
            try FileManager.default.copyItem(atPath: existing.path, toPath: copy)
            home = DataDirectory(path: copy)
            contents = try KeystoreFile(directory: home).unlock(passphrase: SecureBytes(copying: Array(passphrase.utf8)))
            aliceIdentity = try IdentityKeyPair(seed: contents.identitySeed)
        } else {
            (home, contents, aliceIdentity) = try newHome(at: root.appendingPathComponent("alice").path, passphrase: passphrase)
        }

        let bobTransport = RelayClientTransport(client: RelayClient(baseURL: relay.baseURL, httpClient: http))
        let bobCounting = CountingTransport(bobTransport)
        let bob = Messenger(identity: IdentityKeyPair.generate(),
                            store: try MessageStore(path: root.appendingPathComponent("bob.db").path, key: SecureBytes(randomCount: 32)),
                            transport: bobCounting)
        try await bob.register()
        try await introduce(aliceHome: home, databaseKey: contents.databaseKey, identity: aliceIdentity, relayURL: relay.baseURL,
                            http: http, bob: bob, history: history)
        _ = try await bob.sync()  // what Alice's setup sync posted him

        // Alice is offline (no process of hers runs): Bob writes.
        bobCounting.reset()
        let depositStart = ContinuousClock.now
        for index in 0..<backlog {
            _ = try await bob.send(text: "message \(index) of the backlog: see you at the station at eight", to: "alice")
        }
        let depositSeconds = RelayBench.seconds(since: depositStart)
        let uploaded = bobCounting.uploaded
        let envelopeBytes = uploaded.requests > 0 ? uploaded.bytes / uploaded.requests : 0

        // Baseline 1, the wire: the same envelopes fetched from the same mailbox, not acknowledged.
        let wire = RelayClientTransport(client: RelayClient(baseURL: relay.baseURL, httpClient: http))
        try await wire.authenticate(identity: aliceIdentity)
        let wireStart = ContinuousClock.now
        var fetched = 0, after: Int64 = 0
        while true {
            let page = try await wire.fetch(after: after, limit: 100)
            fetched += page.envelopes.count
            guard let last = page.envelopes.last, page.hasMore else { break }
            after = last.serverID
        }
        let wireSeconds = RelayBench.seconds(since: wireStart)
        guard fetched == backlog else { throw BenchError("Alice's mailbox holds \(fetched) envelopes, not the \(backlog) Bob sent") }

        // The drain: the real `hush sync`.
        var environment = ProcessInfo.processInfo.environment
        environment["HUSH_PASSPHRASE"] = passphrase
        environment["HUSH_TIMINGS"] = "1"
        let relayCPUBefore = relay.cpuSeconds()
        let sync = ["sync", "--home", home.path, "--json"]
        let run = try perf.map { output in
            try MeasuredProcess.run("/usr/bin/perf", ["record", "-q", "-g", "-o", output, "--", hush] + sync, environment: environment)
        } ?? MeasuredProcess.run(hush, sync, environment: environment)
        let relayCPU = relay.cpuSeconds() - relayCPUBefore
        guard run.status == 0 else { throw BenchError("hush sync exited \(run.status): \(run.standardError)") }
        let summary = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8).drop { $0 != UInt8(ascii: "{") }) as? [String: Any]
        let received = summary?["received"] as? Int ?? -1
        guard received == backlog else { throw BenchError("hush sync received \(received), not \(backlog): \(run.standardOutput)") }
        let unlockSeconds = (run.standardError.range(of: "timing: unlock ").flatMap {
            Double(run.standardError[$0.upperBound...].prefix { $0.isNumber || $0 == "." })
        } ?? 0) / 1000

        // What Alice posted back: every envelope now in Bob's mailbox is hers (receipts).
        var receiptEnvelopes = 0
        after = 0
        while true {
            let page = try await bobTransport.fetch(after: after, limit: 100)
            receiptEnvelopes += page.envelopes.count
            guard let last = page.envelopes.last, page.hasMore else { break }
            after = last.serverID
        }
        _ = try await bob.sync()
        let delivered = try await bob.history(with: "alice", limit: backlog + 10)
            .filter { $0.direction == .outgoing && ($0.status == .delivered || $0.status == .read) }.count

        // Baseline 2, the store: N plaintext rows, 100 per transaction.
        let storeSeconds = try plaintextInsert(rows: backlog, at: root.appendingPathComponent("plain.db").path)

        let wallLessUnlock = run.wallSeconds - unlockSeconds
        let floor = wireSeconds + storeSeconds
        print("")
        print("N = \(backlog) messages queued\(history > 0 ? ", \(history) already in the conversation" : ", empty history")"
              + (existing.map { " on a home of \($0.label)" } ?? "")
              + " (\(envelopeBytes)-byte envelopes; Bob's \(backlog) sends took \(RelayBench.format(depositSeconds, 1)) s)")
        print("  hush sync, wall time               \(seconds(run.wallSeconds)) s    target ≤ \(seconds(Double(backlog) * targetMillisecondsPerMessage / 1000)) s (0.5 ms × N)")
        print("    of which unlock + open store     \(seconds(unlockSeconds)) s")
        print("    wall − unlock, per message       \(ms(wallLessUnlock * 1000 / Double(backlog))) ms   target ≤ \(ms(targetMillisecondsPerMessage)) ms")
        print("  hush sync CPU per message          \(ms(run.cpuSeconds * 1000 / Double(backlog))) ms   target ≤ \(ms(targetMillisecondsPerMessage)) ms"
              + " (\(seconds(run.cpuSeconds)) s in all, unlock included)")
        print("  hush sync peak RSS                 \(RelayBench.format(Double(run.peakResidentBytes) / 1_048_576, 1)) MiB  target < \(Int(targetPeakMiB)) MiB")
        // Eleven evenly spaced samples: is the peak the unlock's, or does the drain grow?
        let samples = run.residentSamples
        let spread = samples.isEmpty ? [] : (0...10).map { samples[min(samples.count - 1, $0 * (samples.count - 1) / 10)] }
        print("    RSS over the run, MiB (every tenth of \(samples.count) samples, every 2 ms or so): "
              + spread.map { String($0 / 1_048_576) }.joined(separator: " ")
              + (samples.max().map { peak in "; highest sample \(peak / 1_048_576) MiB at \(samples.firstIndex(of: peak)!) of \(samples.count)" } ?? ""))
        // One receipt envelope per conversation per pass, naming up to 256 ids (ContentLimits.maxReceiptIDs).
        let receiptTarget = (backlog + ContentLimits.maxReceiptIDs - 1) / ContentLimits.maxReceiptIDs
        print("  envelopes posted to Bob (receipts) \(receiptEnvelopes)          target \(receiptTarget) (one per conversation per pass, 256 ids each);"
              + " Bob's messages marked delivered: \(delivered)/\(backlog)")
        print("  relay CPU during the drain         \(seconds(relayCPU)) s")
        print("  baseline, wire: fetch the same \(backlog) envelopes, pages of 100      \(seconds(wireSeconds)) s")
        print("  baseline, store: \(backlog) plaintext rows, 100 per transaction       \(seconds(storeSeconds)) s")
        print("  ratio (wall − unlock) / (wire + store)                      \(RelayBench.format(wallLessUnlock / floor, 1))×")
        try await http.shutdown()
        return wallLessUnlock * 1000 / Double(backlog)
    }

    /// Alice's home, as `hush init` leaves it (keystore at Argon2id interactive, no store yet).
    static func newHome(at path: String, passphrase: String) throws -> (home: DataDirectory, contents: KeystoreContents, identity: IdentityKeyPair) {
        let home = DataDirectory(path: path)
        try home.create()
        let contents = KeystoreContents.generate(createdAt: UInt64(Date().timeIntervalSince1970))
        try KeystoreFile(directory: home).create(contents, passphrase: SecureBytes(copying: Array(passphrase.utf8)), cost: .interactive)
        return (home, contents, try IdentityKeyPair(seed: contents.identitySeed))
    }

    /// Alice (in this process, on her home's database) adds Bob and writes
    /// first; Bob accepts her request, so his messages to her are ordinary
    /// credentialed deposits from a contact. With `history`, that many
    /// messages from Bob are put into her conversation with him directly
    /// (rows like the drain writes; how they got there does not change the
    /// tables a drain writes to). Her messenger is gone when this returns.
    static func introduce(aliceHome home: DataDirectory, databaseKey: SecureBytes, identity: IdentityKeyPair, relayURL: String,
                          http: HTTPClient, bob: Messenger, history: Int) async throws {
        let setup = try MessageStore(path: home.databasePath, key: databaseKey)
        try setup.settings.set(SettingsRepository.Name.relayURL, to: relayURL)
        let alice = Messenger(identity: identity, store: setup,
                              transport: RelayClientTransport(client: RelayClient(baseURL: relayURL, httpClient: http)))
        try await alice.register()
        _ = try await alice.addContact(name: "bob", address: bob.identity.address.description)
        _ = try await alice.send(text: "hello Bob", to: "bob")
        _ = try await bob.sync()
        guard let request = try await bob.messageRequests().first else { throw BenchError("Alice's first message did not arrive as a request") }
        _ = try await bob.acceptRequest(name: request.contact.name, renameTo: "alice")
        _ = try await bob.sync()
        _ = try await alice.sync()
        guard history > 0 else { return }
        let store = try MessageStore.openExisting(path: home.databasePath, key: databaseKey)
        guard let contact = try store.contacts.contact(named: "bob") else { throw BenchError("Alice has no contact bob") }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let conversation = try store.conversations.conversation(forContact: contact.id, title: contact.name, at: now)
        var written = 0
        while written < history {
            let count = min(5_000, history - written)
            try store.write { store in
                _ = try store.messages.insert(contentsOf: (0..<count).map { offset in
                    let n = written + offset
                    // Server ids far above any this fresh relay gives out.
                    return NewMessage(conversationId: conversation, serverId: 1_000_000_000 + Int64(n), clientMessageId: "history-\(n)",
                                      direction: .incoming, sender: "bob", body: "an older message, number \(n)",
                                      status: .delivered, createdAt: now - Int64(history - n), relayTimestamp: now - Int64(history - n))
                })
            }
            written += count
        }
    }

    /// Seconds to insert `rows` plaintext messages into a new SQLCipher
    /// store at `path`, 100 per transaction.
    static func plaintextInsert(rows: Int, at path: String) throws -> Double {
        let store = try MessageStore(path: path, key: SecureBytes(randomCount: 32))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let conversation = try store.write { store in
            let contact = try store.contacts.add(name: "bob", address: "hush1baseline", identityKey: SHA256.hash(Array("bob".utf8)), at: now)
            return try store.conversations.conversation(forContact: contact.id, title: contact.name, at: now)
        }
        let start = ContinuousClock.now
        var written = 0
        while written < rows {
            let count = min(100, rows - written)
            try store.write { store in
                _ = try store.messages.insert(contentsOf: (0..<count).map { offset in
                    let n = written + offset
                    return NewMessage(conversationId: conversation, serverId: Int64(n + 1), clientMessageId: "plain-\(n)",
                                      direction: .incoming, sender: "bob", body: "message \(n) of the backlog: see you at the station at eight",
                                      status: .delivered, createdAt: now + Int64(n), relayTimestamp: now + Int64(n))
                })
            }
            written += count
        }
        return RelayBench.seconds(since: start)
    }

    static func seconds(_ value: Double) -> String { pad(RelayBench.format(value, 2)) }
    static func ms(_ value: Double) -> String { pad(RelayBench.format(value, 3)) }
    static func pad(_ text: String) -> String { String(repeating: " ", count: max(0, 7 - text.count)) + text }
}
