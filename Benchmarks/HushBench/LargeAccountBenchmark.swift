import Foundation
import Glibc
import HushCrypto
import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore

/// `HushBench largeaccount [--conversations 2000] [--messages 1000000] [--largest 100000] [--runs 20] [--keep DIR] [--home DIR] [--drain 10000] [--drain-only]`:
/// issue 35, item 5. A real home (keystore at Argon2id interactive, SQLCipher
/// store, the account registered on a relay child) with `--conversations`
/// contacts, each with its conversation, and `--messages` messages among them:
/// `--largest` in the first contact's conversation, the rest spread evenly
/// over the others. Then the release `hush` as a process, measured from
/// outside (posix_spawn to wait4: wall time and the child's own CPU):
/// - the floor: `hush exit-codes` (no account: process start and exit);
/// - the baseline: `hush whoami` (process start, unlock, open; no list, no history);
/// - `hush chats`, and `hush history NAME --limit 50` on the largest conversation
///   and on a typical one; "after the unlock" is each less `hush whoami` in the same run;
/// - the same four through a running `hush daemon` (no unlock per command).
///
/// The home is written the way the store benchmark writes its rows (through
/// the store's repositories, 5,000 per transaction: search index and
/// conversation summaries included); contacts have real addresses, so `hush
/// chats` and `hush history NAME` show them as any others. Its making is timed
/// apart. With `--keep DIR` the home is made at DIR and left there; with
/// `--home DIR` such a home is measured again (registered anew on this run's
/// relay), e.g. after a change to the store, whose migrations then run on it
/// at the first command (timed, and printed).
///
/// Then the drain on this home (item 5: "the same drain target with 2,000
/// conversations"): `--drain` messages (10,000; 0 for none) queued by a new
/// contact while Alice is offline, drained by `hush sync` on a copy of the
/// large home, beside the same drain on a fresh home in the same run
/// (`DrainBenchmark.drain`, which prints each one's wall, CPU and peak RSS).
/// `--drain-only` skips the commands above.
enum LargeAccountBenchmark {
    /// Issue 35, item 5.
    static let targetChatsAfterUnlockMilliseconds = 50.0
    static let targetThroughDaemonMilliseconds = 20.0
    static let targetHistoryMilliseconds = 10.0
    static let passphrase = "large account bench passphrase"

    static func run(arguments: [String]) async throws {
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        let conversations = max(2, option("--conversations").flatMap(Int.init) ?? 2_000)
        let messages = option("--messages").flatMap(Int.init) ?? 1_000_000
        let largest = min(messages, option("--largest").flatMap(Int.init) ?? messages / 10)
        let runs = max(3, option("--runs").flatMap(Int.init) ?? 20)
        let drainBacklog = max(0, option("--drain").flatMap(Int.init) ?? 10_000)
        let drainOnly = arguments.contains("--drain-only")
        guard let hush = RelayBench.siblingHush(skipping: "largeaccount") else { return }

        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop() }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hush-large-bench-\(UUID().uuidString)").path
        let home: String
        if let existing = option("--home") {
            home = existing
            try await register(home: home, relayURL: relay.baseURL)
            print("Large account: the home at \(home), registered on this run's relay")
        } else {
            home = option("--keep") ?? scratch + "/alice"
            print("Large account: \(conversations) conversations, \(messages) messages (\(largest) in the largest conversation),"
                  + " the \(URL(fileURLWithPath: hush).deletingLastPathComponent().lastPathComponent) `hush` as a process;"
                  + " targets from issue 35 item 5")
            let making = ContinuousClock.now
            try await makeHome(at: home, relayURL: relay.baseURL, conversations: conversations, messages: messages, largest: largest)
            print("  home made in \(RelayBench.format(RelayBench.seconds(since: making), 1)) s (not measured below): "
                  + "\(RelayBench.format(Double(try BackupBenchmark.bytes(under: home)) / 1_048_576, 1)) MiB")
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        if !drainOnly { try measureCommands(hush: hush, home: home, runs: runs) }
        if drainBacklog > 0 { try await measureDrain(hush: hush, home: home, backlog: drainBacklog) }
    }

    /// The drain target of item 4 on this home, beside a fresh home's in the same run.
    static func measureDrain(hush: String, home: String, backlog: Int) async throws {
        let size = try homeSize(path: home)
        let label = "\(size.contacts) contacts, \(size.messages) messages"
        print("")
        print("Drain on the large home (issue 35 item 5: the drain target of item 4, ≤ \(RelayBench.format(DrainBenchmark.targetMillisecondsPerMessage, 1)) ms"
              + " CPU per message, \(backlog) in ≤ \(RelayBench.format(Double(backlog) * DrainBenchmark.targetMillisecondsPerMessage / 1000, 1)) s,"
              + " < \(Int(DrainBenchmark.targetPeakMiB)) MiB): first a fresh home, then a copy of this one (\(label))")
        let small = try await DrainBenchmark.drain(hush: hush, backlog: backlog, history: 0, perf: nil)
        let large = try await DrainBenchmark.drain(hush: hush, backlog: backlog, history: 0, perf: ProcessInfo.processInfo.environment["HUSH_DRAIN_PERF"],
                                                   existing: .init(path: home, passphrase: passphrase, label: label))
        print("")
        print("  wall − unlock per message: fresh home \(RelayBench.format(small, 3)) ms, large home \(RelayBench.format(large, 3)) ms"
              + " (\(RelayBench.format(large / small, 2))×)")
    }

    /// How many contacts and messages the home at `path` holds.
    static func homeSize(path: String) throws -> (contacts: Int, messages: Int) {
        let home = DataDirectory(path: path)
        let contents = try KeystoreFile(directory: home).unlock(passphrase: SecureBytes(copying: Array(passphrase.utf8)))
        let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
        return (try store.database.queryFirst("SELECT count(*) FROM contacts") { try $0[0] as Int } ?? 0,
                try store.database.queryFirst("SELECT count(*) FROM messages") { try $0[0] as Int } ?? 0)
    }

    /// `hush chats` and `hush history`, in their own process and through the daemon.
    static func measureCommands(hush: String, home: String, runs: Int) throws {
        let environment = ["PATH": "/usr/bin:/bin", "HUSH_HOME": home, "HUSH_KDF_COST": "interactive", "NO_COLOR": "1", "LANG": "C.UTF-8"]
        let unlocking = environment.merging(["HUSH_PASSPHRASE": passphrase, "HUSH_TIMINGS": "1"]) { $1 }
        // The first command after a change to the store runs its migrations: timed apart, so the runs below do not carry it.
        let first = try TimedRun.run(hush, ["whoami"], environment: unlocking)
        guard first.status == 0 else { throw BenchError("`hush whoami` exited \(first.status): \(first.output)") }
        print("  first command on the home (migrations, if any): \(RelayBench.format(first.wallMilliseconds, 1)) ms wall")

        let names = try contactNames(home: home)
        let typical = names.typical, biggest = names.largest
        print("  \(runs) runs each; wall (posix_spawn → wait4) and the process's own CPU, milliseconds")
        print("  " + "command".padding(toLength: 52, withPad: " ", startingAt: 0) + "  p50 wall   p90 wall   p99 wall   p50 cpu  (unlock, p50)")
        /// With `daemon`, that process's CPU over the runs is added to the last column, per run (clock ticks, averaged).
        func measure(_ label: String, _ arguments: [String], environment: [String: String], runs: Int, daemon: Int32? = nil) throws -> Summary {
            var wall: [Double] = [], cpu: [Double] = [], unlock: [Double] = [], afterUnlock: [Double] = []
            let daemonBefore = daemon.map { RelayBench.cpuSeconds(pid: $0) } ?? 0
            for _ in 0..<runs {
                let run = try TimedRun.run(hush, arguments, environment: environment)
                guard run.status == 0 else { throw BenchError("`hush \(arguments.joined(separator: " "))` exited \(run.status): \(run.output)") }
                wall.append(run.wallMilliseconds)
                cpu.append(run.cpuMilliseconds)
                if let value = DaemonBenchmark.milliseconds(after: "timing: unlock ", in: run.output) {
                    unlock.append(value)
                    afterUnlock.append(run.wallMilliseconds - value)
                }
            }
            let daemonCPU = daemon.map { (RelayBench.cpuSeconds(pid: $0) - daemonBefore) * 1000 / Double(runs) }
            let summary = Summary(wall: wall.sorted(), cpu: cpu.sorted(), unlock: unlock.sorted(), afterUnlock: afterUnlock.sorted(),
                                  daemonCPU: daemonCPU ?? 0)
            print("  " + label.padding(toLength: 52, withPad: " ", startingAt: 0)
                  + " \(DrainBenchmark.pad(RelayBench.format(summary.p50, 2)))    \(DrainBenchmark.pad(RelayBench.format(summary.p90, 2)))"
                  + "    \(DrainBenchmark.pad(RelayBench.format(summary.p99, 2)))"
                  + "    \(DrainBenchmark.pad(RelayBench.format(summary.cpu50, 2)))"
                  + (unlock.isEmpty ? "" : "   (\(RelayBench.format(RelayBench.percentile(summary.unlock, 0.5), 1)))")
                  + (daemonCPU.map { "   + daemon cpu \(RelayBench.format($0, 2)) (mean)" } ?? ""))
            return summary
        }
        let floor = try measure("floor: hush exit-codes (no account)", ["exit-codes"], environment: environment, runs: runs)
        let whoami = try measure("baseline: hush whoami (unlock, open)", ["whoami"], environment: unlocking, runs: runs)
        let chats = try measure("hush chats", ["chats"], environment: unlocking, runs: runs)
        let historyLargest = try measure("hush history \(biggest) --limit 50 (largest)", ["history", biggest, "--limit", "50"],
                                         environment: unlocking, runs: runs)
        let historyTypical = try measure("hush history \(typical) --limit 50 (typical)", ["history", typical, "--limit", "50"],
                                         environment: unlocking, runs: runs)

        let daemon = try Spawned.start(hush, ["daemon"], environment: unlocking)
        defer { daemon.stop() }  // before the drain copies the home
        guard let timings = daemon.waitForError(containing: "hush daemon: serving", seconds: 120) else {
            throw BenchError("the daemon did not start: \(daemon.errorText)")
        }
        let ready = DaemonBenchmark.milliseconds(after: "timing: ready ", in: timings)
        let daemonRuns = runs * 5
        let daemonFloor = try measure("through the daemon: hush whoami", ["whoami"], environment: environment, runs: daemonRuns, daemon: daemon.pid)
        let daemonChats = try measure("through the daemon: hush chats", ["chats"], environment: environment, runs: daemonRuns, daemon: daemon.pid)
        let daemonLargest = try measure("through the daemon: hush history (largest)", ["history", biggest, "--limit", "50"],
                                        environment: environment, runs: daemonRuns, daemon: daemon.pid)
        let daemonTypical = try measure("through the daemon: hush history (typical)", ["history", typical, "--limit", "50"],
                                        environment: environment, runs: daemonRuns, daemon: daemon.pid)
        print("  daemon ready \(ready.map { RelayBench.format($0, 1) } ?? "?") ms after its unlock")

        func ms(_ value: Double) -> String { RelayBench.format(value, 2) + " ms" }
        print("Against the targets (p50 wall; baselines from this run):")
        print("  wall less the run's own unlock, p50: whoami \(ms(whoami.afterUnlock50)), chats \(ms(chats.afterUnlock50)),"
              + " history largest \(ms(historyLargest.afterUnlock50)), typical \(ms(historyTypical.afterUnlock50))"
              + "   targets: chats ≤ \(ms(targetChatsAfterUnlockMilliseconds)), history ≤ \(ms(targetHistoryMilliseconds)) more than whoami")
        print("  hush chats − hush whoami                    \(ms(chats.p50 - whoami.p50))   target ≤ \(ms(targetChatsAfterUnlockMilliseconds))"
              + "   (cpu \(ms(chats.cpu50 - whoami.cpu50)))")
        print("  hush history largest − hush whoami          \(ms(historyLargest.p50 - whoami.p50))   target ≤ \(ms(targetHistoryMilliseconds))"
              + "   (cpu \(ms(historyLargest.cpu50 - whoami.cpu50)))")
        print("  hush history typical − hush whoami          \(ms(historyTypical.p50 - whoami.p50))   target ≤ \(ms(targetHistoryMilliseconds))"
              + "   (cpu \(ms(historyTypical.cpu50 - whoami.cpu50)))")
        print("  through the daemon, CPU of client + daemon: whoami \(ms(daemonFloor.cpu50 + daemonFloor.daemonCPU)),"
              + " chats \(ms(daemonChats.cpu50 + daemonChats.daemonCPU)), history largest \(ms(daemonLargest.cpu50 + daemonLargest.daemonCPU)),"
              + " typical \(ms(daemonTypical.cpu50 + daemonTypical.daemonCPU))")
        print("  through the daemon, hush chats in all       \(ms(daemonChats.p50))   target ≤ \(ms(targetThroughDaemonMilliseconds))"
              + "   (p99 \(ms(daemonChats.p99)))"
              + "   (− daemon whoami: \(ms(daemonChats.p50 - daemonFloor.p50)); floor exit-codes \(ms(floor.p50)))")
        print("  through the daemon, history largest in all  \(ms(daemonLargest.p50))   (− daemon whoami: \(ms(daemonLargest.p50 - daemonFloor.p50)))"
              + "   target ≤ \(ms(targetHistoryMilliseconds)) after the floor")
        print("  through the daemon, history typical in all  \(ms(daemonTypical.p50))   (− daemon whoami: \(ms(daemonTypical.p50 - daemonFloor.p50)))")
    }

    struct Summary {
        let wall: [Double], cpu: [Double], unlock: [Double]
        /// Each run's wall time less its own unlock (Argon2id and opening the store, timed by the process: HUSH_TIMINGS).
        let afterUnlock: [Double]
        /// The daemon's CPU per command, for commands run through it.
        var daemonCPU = 0.0
        var p50: Double { RelayBench.percentile(wall, 0.5) }
        var p90: Double { RelayBench.percentile(wall, 0.9) }
        var p99: Double { RelayBench.percentile(wall, 0.99) }
        var afterUnlock50: Double { RelayBench.percentile(afterUnlock, 0.5) }
        var cpu50: Double { RelayBench.percentile(cpu, 0.5) }
    }

    /// The contact names of a home made here: "friend-0000" holds the largest conversation.
    static func contactName(_ index: Int) -> String { "friend-" + String(format: "%04d", index) }

    static func contactNames(home path: String) throws -> (largest: String, typical: String) {
        let home = DataDirectory(path: path)
        let contents = try KeystoreFile(directory: home).unlock(passphrase: SecureBytes(copying: Array(passphrase.utf8)))
        let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
        let count = try store.database.queryFirst("SELECT count(*) FROM contacts") { try $0[0] as Int } ?? 0
        return (contactName(0), contactName(max(1, count / 2)))
    }

    /// Registers the account at `home` on the relay at `relayURL` (a kept home on a new run's relay).
    static func register(home path: String, relayURL: String) async throws {
        let home = DataDirectory(path: path)
        let contents = try KeystoreFile(directory: home).unlock(passphrase: SecureBytes(copying: Array(passphrase.utf8)))
        let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
        try store.settings.set(SettingsRepository.Name.relayURL, to: relayURL)
        let http = RelayBench.makeHTTPClient(connections: 1)
        let alice = Messenger(identity: try IdentityKeyPair(seed: contents.identitySeed), store: store,
                              transport: RelayClientTransport(client: RelayClient(baseURL: relayURL, httpClient: http)))
        try await alice.register()
        try await http.shutdown()
    }

    /// Alice's home at `path`, registered on the relay, with `conversations`
    /// contacts and `messages` messages (`largest` of them with the first).
    static func makeHome(at path: String, relayURL: String, conversations: Int, messages: Int, largest: Int) async throws {
        let (home, contents, _) = try DrainBenchmark.newHome(at: path, passphrase: passphrase)
        _ = try MessageStore(path: home.databasePath, key: contents.databaseKey)  // made, as `hush init` makes it
        try await register(home: path, relayURL: relayURL)
        let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)

        let start: Milliseconds = Int64(Date().timeIntervalSince1970 * 1000) - Int64(messages) * 1_000
        let conversationIds: [Int64] = try store.write { store in
            try (0..<conversations).map { index in
                let friend = IdentityKeyPair.generate(storage: .wiped).address
                let contact = try store.contacts.add(name: contactName(index), address: friend.description,
                                                     identityKey: friend.identityKey.rawRepresentation, at: start)
                return try store.conversations.conversation(forContact: contact.id, title: contact.name, at: start)
            }
        }
        // Message n (oldest first) goes to the largest conversation while it
        // takes its share, otherwise round-robin over the others; a message a
        // second apart, so the list's order mixes conversations as a real one does.
        var random: UInt64 = 7
        var next = 0
        var inLargest = 0
        while next < messages {
            let end = min(next + 5_000, messages)
            let batch: [NewMessage] = (next..<end).map { n in
                let largestShare = (Int64(n) * Int64(largest)) / Int64(max(1, messages))
                let toLargest = largestShare >= inLargest && inLargest < largest
                if toLargest { inLargest += 1 }
                let conversation = toLargest ? conversationIds[0] : conversationIds[1 + (n % (conversations - 1))]
                let outgoing = n % 3 == 0
                // Read: opening the conversation then sends no receipts (the contacts have no sessions).
                return NewMessage(conversationId: conversation, serverId: Int64(n + 1), clientMessageId: "large-\(n)",
                                  direction: outgoing ? .outgoing : .incoming, sender: outgoing ? "me" : "peer",
                                  body: StoreBenchmark.body(n, random: &random), status: outgoing ? .delivered : .read,
                                  createdAt: start + Int64(n) * 1_000, relayTimestamp: start + Int64(n) * 1_000)
            }
            try store.write { store in _ = try store.messages.insert(contentsOf: batch) }
            next = end
        }
        try store.database.checkpoint()
    }
}

/// One run of a program to its end: wall time from posix_spawn to wait4 (no
/// polling, so no added latency) and the child's own CPU from wait4's rusage.
struct TimedRun {
    let status: Int32
    /// stdout then stderr.
    let output: String
    let wallMilliseconds: Double
    let cpuMilliseconds: Double

    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> TimedRun {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hush-timed-\(UUID().uuidString)").path
        defer { unlink(scratch + ".out"); unlink(scratch + ".err") }
        let start = ContinuousClock.now
        let pid = try ChildSpawn.start(executable, arguments, environment: environment, outputPath: scratch + ".out", errorPath: scratch + ".err")
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = RelayBench.seconds(since: start) * 1000
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
        let output = ((try? String(contentsOfFile: scratch + ".out", encoding: .utf8)) ?? "")
            + ((try? String(contentsOfFile: scratch + ".err", encoding: .utf8)) ?? "")
        return TimedRun(status: (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), output: output,
                        wallMilliseconds: wall, cpuMilliseconds: milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime))
    }
}
