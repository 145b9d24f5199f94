import Foundation
import HushKit
import Synchronization

/// `HushBench devices [--messages 300] [--rounds 2]`: issue 33's delivery
/// target. "A message from a contact reaches all three devices of an
/// account with p99 ≤ 2× the single-device end-to-end time in the same run."
///
/// Five homes in this process, through a relay child on loopback (SQLCipher
/// driver): Bob; Alice's first device with two devices linked to it (three
/// in all); and Carol, an account of one device. Every home but Bob's is
/// live (a socket each, pushes). In each round Bob sends alternately to
/// Carol and to Alice, one message at a time, through HushKit as `hush send`
/// does: a message is timed from the call to its arrival, stored, at the
/// last of the recipient's devices (the `messageReceived` event of each).
/// Carol's time is the single-device baseline, measured in the same rounds.
enum DeviceDeliveryBenchmark {
    static let targetRatio = 2.0

    /// When each live device stored each message it received, in order.
    final class Arrivals: Sendable {
        let instants = Mutex<[ContinuousClock.Instant]>([])
        var count: Int { instants.withLock { $0.count } }
        func instant(_ index: Int) -> ContinuousClock.Instant? { instants.withLock { $0.indices.contains(index) ? $0[index] : nil } }
    }

    static func run(arguments: [String]) async throws {
        func option(_ name: String) -> Int? {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
        }
        let messages = max(10, option("--messages") ?? 300)
        let rounds = max(1, option("--rounds") ?? 2)
        print("Bob's messages to Alice's three devices (one first device, two linked) and to Carol's one, alternately, \(messages) each"
              + " per round, every device live through a relay child on loopback (target from issue 33: p99 ≤ \(targetRatio)× Carol's)")

        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hush-devices-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let keys = KeyProvider.passphrase(BackupBenchmark.passphrase, cost: .interactive)
        func create(_ name: String) async throws -> HushAccount {
            let account = try await HushAccount.create(in: root + "/" + name, keys: keys, displayName: name, relayURL: relay.baseURL)
            try await account.register()
            return account
        }
        let bob = try await create("bob"), carol = try await create("carol")
        var alice = try await create("alice")
        let aliceHome = alice.directory
        // Acquainted both ways (each holds the other's delivery credential), before the links.
        for other in [alice, carol] {
            let forOther = try await bob.addContact(name: other.directory.hasSuffix("alice") ? "alice" : "carol", address: other.address)
            _ = try await bob.room(with: forOther.id).send("hello")
            _ = try await other.sync()
            _ = try await other.addContact(name: "bob", address: bob.address)
            guard let bobContact = try await other.conversations().first?.contact else { throw BenchError("no conversation with bob") }
            let back = try await other.room(with: bobContact)
            _ = try await back.send("hi")
        }
        _ = try await bob.sync()
        await alice.closeAndWait()
        var devices: [HushAccount] = []
        for index in 1...2 {
            _ = try await LinkBenchmark.linkOnce(home: aliceHome, into: root + "/alice-\(index)", keys: keys, relayURL: relay.baseURL,
                                                 round: index)
        }
        alice = try await HushAccount.open(in: aliceHome, keys: keys)
        devices = [alice]
        for index in 1...2 { devices.append(try await HushAccount.open(in: root + "/alice-\(index)", keys: keys)) }
        // Bob adopts the list of three and starts his sessions with the linked devices; a first message
        // on each settles them (the devices answer nothing: their receipts go back on the same sessions).
        _ = try await bob.sync()
        guard let aliceContact = try await bob.conversations().first(where: { $0.title == "alice" })?.contact,
              let carolContact = try await bob.conversations().first(where: { $0.title == "carol" })?.contact else {
            throw BenchError("bob has no conversation with alice or carol")
        }
        guard try await bob.devices(ofContact: aliceContact)?.devices.filter(\.isActive).count == 3 else {
            throw BenchError("bob does not hold alice's list of three devices")
        }
        _ = try await bob.room(with: aliceContact).send("warm-up")
        for device in devices { _ = try await device.sync() }

        let receivers = devices + [carol]
        let arrivals = receivers.map { _ in Arrivals() }
        var watchers: [Task<Void, Never>] = []
        for (account, log) in zip(receivers, arrivals) {
            let events = account.events()
            watchers.append(Task {
                for await event in events {
                    if case .messageReceived = event { log.instants.withLock { $0.append(.now) } }
                }
            })
            account.startLive()
        }
        defer { for watcher in watchers { watcher.cancel() } }
        for account in receivers {
            for _ in 0..<500 where !account.isConnected { try await Task.sleep(for: .milliseconds(10)) }
        }
        let toAlice = try await bob.room(with: aliceContact), toCarol = try await bob.room(with: carolContact)

        /// Sends one message and returns the milliseconds until `logs` all hold it (their `expected`-th arrival).
        func timed(_ room: Room, _ text: String, _ logs: [Arrivals], expected: [Int]) async throws -> Double {
            let start = ContinuousClock.now
            _ = try await room.send(text)
            let deadline = start + .seconds(30)
            while zip(logs, expected).contains(where: { $0.count <= $1 }) {
                guard ContinuousClock.now < deadline else { throw BenchError("a message did not reach every device within 30 s") }
                try await Task.sleep(for: .microseconds(200))
            }
            let last = zip(logs, expected).compactMap { $0.instant($1) }.max()!
            return Double((last - start).components.attoseconds) / 1e15 + Double((last - start).components.seconds) * 1000
        }

        print("| round | recipient | messages | p50 ms | p99 ms | max ms |")
        print("|---|---|---|---|---|---|")
        var ratios: [Double] = []
        let load = AttachmentBenchmark.loadAverage
        for round in 1...rounds {
            var three: [Double] = [], one: [Double] = []
            for index in 0..<messages {
                let carolSeen = arrivals[3].count, aliceSeen = arrivals[0..<3].map(\.count)
                one.append(try await timed(toCarol, "c\(round)-\(index)", [arrivals[3]], expected: [carolSeen]))
                three.append(try await timed(toAlice, "a\(round)-\(index)", Array(arrivals[0..<3]), expected: aliceSeen))
            }
            three.sort()
            one.sort()
            for (label, samples) in [("alice, 3 devices (last of the three)", three), ("carol, 1 device", one)] {
                print("| \(round) | \(label) | \(samples.count) | \(RelayBench.format(RelayBench.percentile(samples, 0.5), 2)) | "
                      + "\(RelayBench.format(RelayBench.percentile(samples, 0.99), 2)) | \(RelayBench.format(samples.last!, 2)) |")
            }
            ratios.append(RelayBench.percentile(three, 0.99) / RelayBench.percentile(one, 0.99))
        }
        for account in receivers + [bob] { await account.closeAndWait() }
        let ratio = BackupBenchmark.median(ratios)
        print("  load average before: \(load), after: \(AttachmentBenchmark.loadAverage)")
        print("  p99 to three devices \(RelayBench.format(ratio, 2))× the single device's (median of rounds: "
              + "\(ratios.map { RelayBench.format($0, 2) }.joined(separator: ", "))); target ≤ \(targetRatio)×: \(ratio <= targetRatio ? "met" : "not met")")
    }
}
