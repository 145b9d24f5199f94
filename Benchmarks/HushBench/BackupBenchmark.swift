import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto
import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore

/// `HushBench backup [--messages 100000] [--attachment-mib 1024] [--files 4] [--rounds 3] [--perf FILE] [--keep DIR] [--compare HUSH] [--cold-archive]`:
/// issue 32's targets. Alice's home holds `--messages` messages from Bob and
/// `--attachment-mib` MiB of files he sent her (in `--files` files), received
/// and downloaded; then the release `hush backup create --to DIR` and `hush
/// backup restore ARCHIVE --home NEWDIR` run as processes, measured from
/// outside: wall time, the process's own CPU (wait4) and peak RSS (VmHWM:
/// MeasuredProcess says why not ru_maxrss). Baselines in the same run, on the
/// same filesystem: `cp -r HOME DEST`, and `cp -r` then `sync -f DEST` (the
/// copy on disk, as a backup must be). Speed is the home's bytes over the
/// time. `--rounds` rounds of baseline, create, restore, one after the other:
/// medians, and each ratio against its own round's baseline (on a shared
/// machine the load drifts between rounds).
///
/// The home is made the way the drain suite makes one (DrainBenchmark):
/// a real relay child, Alice and Bob introduced through it, the messages put
/// into her conversation with Bob as rows, and the files sent by Bob's
/// Messenger and downloaded by hers (the encrypted blobs under the home's
/// `attachments`, as `hush fetch` leaves them). Its making is timed apart.
///
/// `hush backup create` syncs the archive to disk before renaming it, and
/// restore every file and the store before renaming the home into place;
/// `cp -r` syncs nothing, hence the second baseline. Restore reads the archive once,
/// checking each record as it writes it into a temporary folder, derives the
/// new keystore's key once (Argon2id interactive) and starts the new
/// sessions, all inside its wall time. With `--perf FILE`, each hush run
/// is under `perf record -g -o FILE.create` / `FILE.restore`: for finding the
/// hot spots, not for the figures. With `--keep DIR`, the archive is copied
/// into DIR with its recovery key beside it (`recovery-key`, owner-only), to
/// time or profile `hush backup restore` again without making the home again.
/// With `--compare HUSH` (another build's `hush`, e.g. one that writes an
/// older archive format), each round also runs its create and restore on the
/// same home, in alternating order with this build's (first in odd rounds),
/// so two builds are compared in one run, each against the same round's baselines.
/// With `--cold-archive`, each archive is dropped from the page cache (it is
/// synced, then POSIX_FADV_DONTNEED on it alone) before it is restored, as
/// an archive restored on another day or machine is: a build that writes its
/// archive through the cache would otherwise restore it from memory.
enum BackupBenchmark {
    static let targetRatio = 0.5
    static let targetPeakMiB = 100.0
    static let passphrase = "backup bench passphrase"

    static func run(arguments: [String]) async throws {
        func option(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
        }
        let messages = option("--messages").flatMap(Int.init) ?? 100_000
        let mib = option("--attachment-mib").flatMap(Int.init) ?? 1024
        let files = max(1, option("--files").flatMap(Int.init) ?? 4)
        let perf = option("--perf")
        let rounds = max(1, option("--rounds").flatMap(Int.init) ?? 3)
        let keep = option("--keep")
        let compare = option("--compare")
        let coldArchive = arguments.contains("--cold-archive")
        /// Drops a synced archive's pages from the page cache (only its own), when asked to.
        func evict(_ path: String) {
            guard coldArchive else { return }
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            #if os(Linux)
            _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
            #endif
        }
        guard let hush = RelayBench.siblingHush(skipping: "backup") else { return }
        print("Backup and restore of a home with \(messages) messages and \(mib) MiB of downloaded attachments (\(files) files),"
              + " the \(URL(fileURLWithPath: hush).deletingLastPathComponent().lastPathComponent) `hush` as a process, beside `cp -r`"
              + " of the same home (targets from issue 32: ≥ \(targetRatio)× cp -r, peak < \(Int(targetPeakMiB)) MiB)")

        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hush-backup-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }

        let making = ContinuousClock.now
        let home = try await makeHome(at: root, relayURL: relay.baseURL, messages: messages, mib: mib, files: files)
        let makingSeconds = RelayBench.seconds(since: making)
        let environment = ["PATH": "/usr/bin:/bin", "HUSH_HOME": home, "HUSH_KDF_COST": "interactive", "NO_COLOR": "1", "LANG": "C.UTF-8",
                           "HUSH_PASSPHRASE": passphrase]
        // `hush backup key` makes the account's recovery key (a home made before recovery keys gets one now).
        let keyRun = try MeasuredProcess.run(hush, ["backup", "key", "--json"], environment: environment)
        guard keyRun.status == 0, let recoveryKey = summary(keyRun)["recoveryKey"] as? String else {
            throw BenchError("`hush backup key --json` exited \(keyRun.status) without a key: \(keyRun.standardError)")
        }
        // Again, now that it has one: what any command that unlocks the account costs (Argon2id interactive, 64 MiB), for scale.
        let unlock = try MeasuredProcess.run(hush, ["backup", "key", "--json"], environment: environment)
        let homeBytes = try bytes(under: home), attachmentBytes = try bytes(under: home + "/attachments")
        print("  home: \(mebibytes(homeBytes)) MiB (attachments \(mebibytes(attachmentBytes)) MiB, the rest \(mebibytes(homeBytes - attachmentBytes)) MiB);"
              + " made in \(RelayBench.format(makingSeconds, 1)) s (not measured below)")

        // The home's files were downloaded with O_DIRECT, so they are not in the page cache: whatever reads
        // them first pays the disk (a first `cp -r` took 4.4 s, a second 0.3 s). Read once, untimed, so every
        // run below, the baseline's and hush's, reads the home from the cache.
        _ = try Spawned.run("/bin/cp", ["-r", home, root + "/warm"], environment: environment)
        try FileManager.default.removeItem(atPath: root + "/warm")

        func measured(_ label: String, _ arguments: [String], environment: [String: String], binary: String? = nil) throws -> MeasuredProcess {
            let hush = binary ?? hush
            let run = try perf.map { output in
                try MeasuredProcess.run("/usr/bin/perf", ["record", "-q", "-g", "-o", "\(output).\(label)", "--", hush] + arguments,
                                        environment: environment)
            } ?? MeasuredProcess.run(hush, arguments, environment: environment)
            guard run.status == 0 else { throw BenchError("`hush \(arguments.joined(separator: " "))` exited \(run.status): \(run.standardError)") }
            return run
        }

        // Each round: the baseline (the home copied on the same filesystem, then synced: a backup is on
        // disk when it is done, so `cp -r` + `sync -f` is the copy it compares with), then create, then
        // restore, each after a `sync` of everything before it.
        let restored = root + "/restored"
        var restoreEnvironment = environment
        restoreEnvironment["HUSH_HOME"] = restored
        restoreEnvironment["HUSH_RECOVERY_KEY"] = recoveryKey
        var results: [Round] = []
        let loadBefore = AttachmentBenchmark.loadAverage
        var archive = "", archiveBytes = 0, created: [String: Any] = [:]
        for round in 0..<rounds {
            if round > 0 {
                try FileManager.default.removeItem(atPath: archive)
                try FileManager.default.removeItem(atPath: restored)
            }
            _ = try Spawned.run("/bin/sync", [], environment: environment)
            let copy = try MeasuredProcess.run("/bin/cp", ["-r", home, root + "/copy"], environment: environment)
            guard copy.status == 0 else { throw BenchError("cp -r exited \(copy.status): \(copy.standardError)") }
            let copySync = try MeasuredProcess.run("/bin/sync", ["-f", root + "/copy"], environment: environment)
            try FileManager.default.removeItem(atPath: root + "/copy")
            _ = try Spawned.run("/bin/sync", [], environment: environment)

            // The other build's create and restore, into folders of their own, removed after.
            func compared() throws -> (create: Timing, restore: Timing)? {
                guard let compare else { return nil }
                let create = try measured("compare-create", ["backup", "create", "--to", root + "/compare-archives", "--json"],
                                          environment: environment, binary: compare)
                guard let path = summary(create)["path"] as? String else { throw BenchError("the compared `hush backup create` named no archive") }
                _ = try Spawned.run("/bin/sync", [], environment: environment)
                evict(path)
                var environment = restoreEnvironment
                environment["HUSH_HOME"] = root + "/compare-restored"
                let restore = try measured("compare-restore", ["backup", "restore", path, "--json"], environment: environment, binary: compare)
                try FileManager.default.removeItem(atPath: root + "/compare-archives")
                try FileManager.default.removeItem(atPath: root + "/compare-restored")
                _ = try Spawned.run("/bin/sync", [], environment: environment)
                return (Timing(create), Timing(restore))
            }
            let comparedFirst = round % 2 == 1 ? try compared() : nil
            let create = try measured("create", ["backup", "create", "--to", root + "/archives", "--json"], environment: environment)
            created = summary(create)
            guard let path = created["path"] as? String else { throw BenchError("`hush backup create` named no archive: \(create.standardOutput)") }
            archive = path
            archiveBytes = try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int ?? 0
            _ = try Spawned.run("/bin/sync", [], environment: environment)
            evict(archive)
            let restore = try measured("restore", ["backup", "restore", archive, "--json"], environment: restoreEnvironment)
            _ = try Spawned.run("/bin/sync", [], environment: environment)
            let other = try comparedFirst ?? (round % 2 == 1 ? nil : compared())
            results.append(Round(copy: Timing(copy), copied: Timing(copy) + Timing(copySync), create: Timing(create), restore: Timing(restore),
                                 compareCreate: other?.create, compareRestore: other?.restore))
        }
        if let keep {
            try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            let kept = keep + "/" + URL(fileURLWithPath: archive).lastPathComponent
            try? FileManager.default.removeItem(atPath: kept)
            try FileManager.default.copyItem(atPath: archive, toPath: kept)
            FileManager.default.createFile(atPath: keep + "/recovery-key", contents: Data(recoveryKey.utf8),
                                           attributes: [.posixPermissions: 0o600])
            print("  kept: \(kept), its recovery key in \(keep)/recovery-key")
        }

        // Did it restore? The messages table row for row, and every attachment file byte for byte.
        let sourceMessages = try messageCount(home: home), restoredMessages = try messageCount(home: restored)
        let sameFiles = try Spawned.run("/usr/bin/diff", ["-r", "-q", home + "/attachments", restored + "/attachments"], environment: environment)

        print("  \(rounds) round\(rounds == 1 ? "" : "s"), medians (wall min–max); ratios are speeds against the same round's baseline,"
              + " wall for wall and CPU for CPU, their median over the rounds; load average before: \(loadBefore)")
        print("  cp -r HOME DEST                   \(row(results.map(\.copy), bytes: homeBytes))")
        print("  cp -r HOME DEST + sync -f DEST    \(row(results.map(\.copied), bytes: homeBytes))")
        var rows = [("hush backup create --to DIR      ", results.map(\.create)), ("hush backup restore ARCHIVE      ", results.map(\.restore))]
        if compare != nil {
            rows += [("compared build's create          ", results.compactMap(\.compareCreate)),
                     ("compared build's restore         ", results.compactMap(\.compareRestore))]
        }
        if let compare { print("  compared build: \(compare)") }
        if coldArchive { print("  every archive dropped from the page cache before its restore (--cold-archive)") }
        for (label, runs) in rows {
            func ratio(_ baseline: KeyPath<Round, Timing>, _ time: KeyPath<Timing, Double>) -> String {
                RelayBench.format(median(zip(results, runs).map { $0[keyPath: baseline][keyPath: time] / $1[keyPath: time] }), 2)
            }
            let copies = \Round.copy, synced = \Round.copied
            let peak = runs.map(\.peakBytes).max() ?? 0
            print("  \(label) \(row(runs, bytes: homeBytes))")
            print("      = \(ratio(copies, \.wall))× cp -r, \(ratio(synced, \.wall))× cp -r + sync -f (wall; target ≥ \(targetRatio)×);"
                  + " CPU \(ratio(copies, \.cpu))× cp -r, \(ratio(synced, \.cpu))× cp -r + sync -f;"
                  + " peak RSS \(RelayBench.format(Double(peak) / 1_048_576, 1)) MiB (target < \(Int(targetPeakMiB)) MiB)")
            // `cp -r` has varied between rounds of one run (0.30 s in the first, 1.2–1.5 s in later ones on
            // the idle machine, s48): the median against the run's fastest copy too, so a slow copy cannot
            // carry the ratio alone.
            let fastestCopy = results.map(\.copy.wall).min() ?? 0, fastestSynced = results.map(\.copied.wall).min() ?? 0
            let medianWall = median(runs.map(\.wall))
            print("      = \(RelayBench.format(fastestCopy / medianWall, 2))× the run's fastest cp -r (\(RelayBench.format(fastestCopy, 2)) s),"
                  + " \(RelayBench.format(fastestSynced / medianWall, 2))× its fastest cp -r + sync -f (\(RelayBench.format(fastestSynced, 2)) s), median wall for median wall")
        }
        print("  load average after: \(AttachmentBenchmark.loadAverage)")
        print("  for scale, `hush backup key` (process start, unlock, nothing else): \(RelayBench.format(unlock.wallSeconds, 2)) s wall,"
              + " \(RelayBench.format(unlock.cpuSeconds, 2)) s CPU, peak RSS \(RelayBench.format(Double(unlock.peakResidentBytes) / 1_048_576, 1)) MiB")
        print("  archive: \(mebibytes(archiveBytes)) MiB = \(RelayBench.format(Double(archiveBytes) / Double(homeBytes), 3))× the home's \(mebibytes(homeBytes)) MiB;"
              + " it holds \(created["messages"] ?? "?") messages, \(created["files"] ?? "?") files")
        print("  restore check: messages \(restoredMessages) restored of \(sourceMessages);"
              + " attachment files \(sameFiles.status == 0 ? "identical" : "DIFFER: \(sameFiles.output)")")
        guard restoredMessages == sourceMessages, sameFiles.status == 0 else { throw BenchError("the restored home is not the one backed up") }
    }

    /// Alice's home under `root` with `messages` messages from Bob and `mib`
    /// MiB of his files downloaded, in `files` files; returns its path.
    static func makeHome(at root: String, relayURL: String, messages: Int, mib: Int, files: Int) async throws -> String {
        let http = RelayBench.makeHTTPClient(connections: 4)
        let (home, contents, identity) = try DrainBenchmark.newHome(at: root + "/alice", passphrase: passphrase)
        let transport = { RelayClientTransport(client: RelayClient(baseURL: relayURL, httpClient: http)) }
        let bob = Messenger(identity: IdentityKeyPair.generate(),
                            store: try MessageStore(path: root + "/bob.db", key: SecureBytes(randomCount: 32)),
                            transport: transport(), attachmentDirectory: root + "/bob-attachments")
        try await bob.register()
        let rows = ContinuousClock.now
        try await DrainBenchmark.introduce(aliceHome: home, databaseKey: contents.databaseKey, identity: identity, relayURL: relayURL,
                                           http: http, bob: bob, history: messages)
        let rowsSeconds = RelayBench.seconds(since: rows)

        let sending = ContinuousClock.now
        let size = (mib << 20) / files
        for index in 0..<files {
            let path = root + "/file-\(index).bin"
            try AttachmentBenchmark.writePatternFile(path, size: size)
            _ = try await bob.sendFile(at: path, to: "alice")
            try FileManager.default.removeItem(atPath: path)
        }
        // Bob's sealed copies are his, not part of Alice's home.
        try? FileManager.default.removeItem(atPath: root + "/bob-attachments")
        let sendSeconds = RelayBench.seconds(since: sending)

        let fetching = ContinuousClock.now
        let alice = Messenger(identity: identity, store: try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey),
                              transport: transport(), attachmentDirectory: home.file("attachments"))
        _ = try await alice.sync()
        let received = try await alice.attachmentList(contact: "bob").filter { $0.attachment.direction == .incoming }
        guard received.count == files else { throw BenchError("Alice received \(received.count) files, not the \(files) Bob sent") }
        for entry in received { _ = try await alice.fetchAttachment(id: entry.attachment.id, to: nil) }
        print("  making the home: \(messages) message rows \(RelayBench.format(rowsSeconds, 1)) s (with the introduction),"
              + " Bob's \(files) files sealed and uploaded \(RelayBench.format(sendSeconds, 1)) s,"
              + " Alice's sync and downloads \(RelayBench.format(RelayBench.seconds(since: fetching), 1)) s")
        try await http.shutdown()
        return home.path
    }

    /// The JSON object a `--json` command printed.
    static func summary(_ run: MeasuredProcess) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8).drop { $0 != UInt8(ascii: "{") })) as? [String: Any] ?? [:]
    }

    /// Rows in the messages table of the home at `path` (unlocked with the bench passphrase).
    static func messageCount(home path: String) throws -> Int {
        let home = DataDirectory(path: path)
        let contents = try KeystoreFile(directory: home).unlock(passphrase: SecureBytes(copying: Array(passphrase.utf8)))
        let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
        return try store.database.queryFirst("SELECT count(*) FROM messages") { try $0[0] as Int } ?? 0
    }

    /// Bytes of the regular files under `directory`.
    static func bytes(under directory: String) throws -> Int {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return 0 }
        var total = 0
        while let relative = enumerator.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + relative)
            if attributes[.type] as? FileAttributeType == .typeRegular { total += attributes[.size] as? Int ?? 0 }
        }
        return total
    }

    /// One measured process: or two one after the other (`cp -r` then `sync -f`), added up.
    struct Timing {
        let wall: Double
        let cpu: Double
        let peakBytes: Int

        init(_ run: MeasuredProcess) { self.init(wall: run.wallSeconds, cpu: run.cpuSeconds, peakBytes: run.peakResidentBytes) }
        init(wall: Double, cpu: Double, peakBytes: Int) { self.wall = wall; self.cpu = cpu; self.peakBytes = peakBytes }

        static func + (first: Timing, then: Timing) -> Timing {
            Timing(wall: first.wall + then.wall, cpu: first.cpu + then.cpu, peakBytes: max(first.peakBytes, then.peakBytes))
        }
    }

    /// One round: the baseline, alone and synced, then hush's create and restore.
    struct Round {
        let copy: Timing
        let copied: Timing
        let create: Timing
        let restore: Timing
        var compareCreate: Timing? = nil
        var compareRestore: Timing? = nil
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Median wall and CPU, the wall's range, and the speed at the median wall.
    static func row(_ runs: [Timing], bytes: Int) -> String {
        let wall = median(runs.map(\.wall))
        return "\(DrainBenchmark.seconds(wall)) s wall (\(RelayBench.format(runs.map(\.wall).min() ?? 0, 2))–\(RelayBench.format(runs.map(\.wall).max() ?? 0, 2))),"
            + " \(DrainBenchmark.seconds(median(runs.map(\.cpu)))) s CPU, "
            + "\(DrainBenchmark.pad(RelayBench.format(Double(bytes) / 1_048_576 / wall, 1))) MiB/s"
    }

    static func mebibytes(_ bytes: Int) -> String { RelayBench.format(Double(bytes) / 1_048_576, 1) }
}
