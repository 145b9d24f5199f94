import Foundation
import HushCrypto
import HushKit
import HushRelayClient
import Synchronization

/// `HushBench link [--messages 100000] [--attachment-mib 1024] [--files 4] [--rounds 2]`:
/// issue 33's link target. "Linking a device with 100,000 messages and 1 GiB
/// of files completes in under 2 minutes on loopback and at ≥ 0.5× the speed
/// of the attachment path for the same bytes."
///
/// The home is the backup suite's (`BackupBenchmark.makeHome`: the messages
/// as rows, the files sent by Bob and downloaded). Each round links a new
/// device to it with HushKit's `linkDevice` and `joinByLink` running side by
/// side in this process, through a relay child on loopback (the same relay
/// the attachment suite uses): from the code being shown to the new home
/// opened, so the archive's writing, its parts going up and down, their
/// checks and the restore are all inside the time; the confirmation is
/// given at once. The baseline, in the same round, is the attachment path
/// for as many bytes as the home holds: `Messenger.sendFile` (encrypt and
/// upload) then `fetchAttachment(to:)` (download, check and decrypt), as
/// `AttachmentBenchmark` runs them. Speed is bytes over wall time; CPU is
/// this process's and the relay's.
enum LinkBenchmark {
    static let targetRatio = 0.5
    static let targetSeconds = 120.0

    static func run(arguments: [String]) async throws {
        func option(_ name: String) -> Int? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
        }
        let messages = option("--messages") ?? 100_000
        let mib = option("--attachment-mib") ?? 1024
        let files = max(1, option("--files") ?? 4)
        let rounds = max(1, option("--rounds") ?? 2)
        print("Linking a device to a home with \(messages) messages and \(mib) MiB of files (\(files) files), both devices in this process"
              + " through a relay child on loopback, beside the attachment path for the same bytes (targets from issue 33:"
              + " < \(Int(targetSeconds)) s, ≥ \(targetRatio)× the attachment path's speed)")

        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hush-link-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let home = try await BackupBenchmark.makeHome(at: root, relayURL: relay.baseURL, messages: messages, mib: mib, files: files)
        let keys = KeyProvider.passphrase(BackupBenchmark.passphrase, cost: .interactive)
        _ = try await HushAccount.recoveryKey(in: home, keys: keys)
        let homeBytes = try BackupBenchmark.bytes(under: home)
        let size = max(1, homeBytes >> 20) << 20
        print("  home: \(BackupBenchmark.mebibytes(homeBytes)) MiB; the attachment path moves a file of \(size >> 20) MiB")

        let http = RelayBench.makeHTTPClient(connections: 4)
        let client = try await RelayBench.Identity(index: 0).enroll(baseURL: relay.baseURL, http: http)
        try FileManager.default.createDirectory(atPath: root + "/pair", withIntermediateDirectories: true)
        let (alice, bob) = try await AttachmentBenchmark.pair(relayURL: relay.baseURL, http: http, in: root + "/pair")
        let plainPath = root + "/pair/file.bin"
        try AttachmentBenchmark.writePatternFile(plainPath, size: size)
        // Read once, untimed: the home's files were downloaded past the page cache.
        _ = try Spawned.run("/bin/cp", ["-r", home, root + "/warm"], environment: ["PATH": "/usr/bin:/bin"])
        try FileManager.default.removeItem(atPath: root + "/warm")

        let loadBefore = AttachmentBenchmark.loadAverage
        print("| round | phase | wall s | MiB/s | this process CPU s | relay CPU s | peak RSS MiB |")
        print("|---|---|---|---|---|---|---|")
        var ratios: [Double] = [], cpuRatios: [Double] = [], linkWalls: [Double] = []
        for round in 1...rounds {
            let (_, send, _, fetch) = try await AttachmentBenchmark.transferRound(client: client, relay: relay, alice: alice, bob: bob, size: size,
                                                                                 plainPath: plainPath, directory: root + "/pair")
            let linked = root + "/linked-\(round)"
            var summary: BackupSummary?
            let link = try await AttachmentBenchmark.Phase.measure(relay) {
                summary = try await linkOnce(home: home, into: linked, keys: keys, relayURL: relay.baseURL, round: round)
                return ""
            }
            guard let summary, summary.rowsByTable["messages"] ?? 0 >= messages else {
                throw BenchError("the linked home does not hold the history")
            }
            let same = try Spawned.run("/usr/bin/diff", ["-r", "-q", home + "/attachments", linked + "/attachments"], environment: ["PATH": "/usr/bin:/bin"])
            guard same.status == 0 else { throw BenchError("the linked home's files differ: \(same.output)") }
            try FileManager.default.removeItem(atPath: linked)
            for (label, phase, bytes) in [("encrypt+upload (hush send --file)", send, size), ("download+decrypt (hush fetch --out)", fetch, size),
                                          ("device link + init --link", link, homeBytes)] {
                print("| \(round) | \(label) | \(RelayBench.format(phase.wall, 2)) | \(RelayBench.format(Double(bytes) / 1_048_576 / phase.wall)) | "
                      + "\(RelayBench.format(phase.cpu, 2)) | \(RelayBench.format(phase.relayCPU, 2)) | \(RelayBench.format(Double(phase.peak) / 1_048_576, 1)) |")
            }
            // Speeds per byte: the link moves the home's bytes, the attachment path `size` (the same, to the MiB).
            let linkSpeed = Double(homeBytes) / link.wall, pathSpeed = Double(size) / (send.wall + fetch.wall)
            ratios.append(linkSpeed / pathSpeed)
            cpuRatios.append((link.totalCPU / Double(homeBytes)) / ((send.totalCPU + fetch.totalCPU) / Double(size)))
            linkWalls.append(link.wall)
        }
        try await http.shutdown()
        let ratio = BackupBenchmark.median(ratios), wall = BackupBenchmark.median(linkWalls)
        print("  load average before: \(loadBefore), after: \(AttachmentBenchmark.loadAverage)")
        print("  link: \(RelayBench.format(wall, 2)) s wall (median; target < \(Int(targetSeconds)) s: \(wall < targetSeconds ? "met" : "not met"));"
              + " speed \(RelayBench.format(ratio, 2))× the attachment path's (encrypt+upload then download+decrypt),"
              + " median of \(ratios.map { RelayBench.format($0, 2) }.joined(separator: ", ")) (target ≥ \(targetRatio)×: \(ratio >= targetRatio ? "met" : "not met"));"
              + " CPU per byte \(RelayBench.format(BackupBenchmark.median(cpuRatios), 2))× the attachment path's")
    }

    /// One link from `home` to a new home at `target`, both sides here; the confirmation is given at once.
    static func linkOnce(home: String, into target: String, keys: KeyProvider, relayURL: String, round: Int) async throws -> BackupSummary {
        let code = Mutex<String?>(nil), digits = Mutex<String?>(nil)
        async let existing = HushAccount.linkDevice(from: home, keys: keys, thisDeviceName: "bench", relayURL: relayURL,
                                                    showCode: { shown in code.withLock { $0 = shown } }) { _, shown in
            while true {
                if let seen = digits.withLock({ $0 }) { return seen == shown }
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        var text: String?
        while text == nil {
            text = code.withLock { $0 }
            if text == nil { try await Task.sleep(for: .milliseconds(5)) }
        }
        let (summary, account) = try await HushAccount.joinByLink(code: text!, into: target, keys: keys, deviceName: "linked-\(round)",
                                                                  relayURL: relayURL) { shown in digits.withLock { $0 = shown } }
        _ = try await existing
        await account.closeAndWait()
        return summary
    }
}
