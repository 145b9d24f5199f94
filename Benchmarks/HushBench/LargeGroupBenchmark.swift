import AsyncHTTPClient
import Foundation
import HushCrypto
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore
import Synchronization

/// `HushBench largegroups [--members N] [--baseline-members M]`: a large
/// group (docs/PROTOCOL.md §18.4) of an admin and N members (999: 1 000 in
/// all) beside a §18.1 group of an admin and M (99), in one run on one real relay
/// on loopback (SQLCipher driver,
/// rate limits open). Every member is simulated in this process with its
/// own identity, its own SQLCipher store (a file) and its own relay client.
/// Set-up (not timed): every member registers, the admin adds each as a
/// contact and writes to it, and each accepts. Timed, for each group: the
/// group created, every member's chains set up (a large group's derived
/// from the state; a small group's distributed, with the sessions that
/// takes), one message sent and read by every member; then one member
/// removed and one added (in that order, so a group created full stays
/// within 1 000). Reported: wall and CPU (this process, the
/// relay's) in total and per member, envelopes and bytes deposited at the
/// relay, and its database's growth.
enum LargeGroupBenchmark {
    static func run(arguments: [String]) async throws {
        func option(_ name: String, _ fallback: Int) -> Int {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? fallback
        }
        let largeCount = option("--members", 999), smallCount = option("--baseline-members", 99)
        _ = RelayBench.raiseFileLimit()
        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop() }
        let http = RelayBench.makeHTTPClient(connections: 8)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hush-large-group-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let deposits = DepositTally()

        func participant(_ name: String) async throws -> Messenger {
            let store = try MessageStore(path: root.appendingPathComponent("\(name).db").path, key: SecureBytes(randomCount: 32))
            let transport = TallyingTransport(RelayClientTransport(client: RelayClient(baseURL: relay.baseURL, httpClient: http)),
                                              tally: deposits)
            let messenger = Messenger(identity: IdentityKeyPair.generate(), store: store, transport: transport)
            try await messenger.register()
            return messenger
        }

        /// An admin with `count` (+ `extra`) members who accepted it; the members do not know each other.
        func setUp(_ label: String, count: Int) async throws -> (admin: Messenger, members: [Messenger], extra: Messenger) {
            let start = ContinuousClock.now
            let admin = try await participant("\(label)-admin")
            var members: [Messenger] = []
            for index in 0...count {
                let member = try await participant("\(label)-m\(index)")
                try await admin.addContact(name: "m\(index)", address: member.identity.address.description)
                try await admin.send(text: "warm-up", to: "m\(index)")
                _ = try await member.sync()
                if let request = try await member.messageRequests().first {
                    try await member.acceptRequest(name: request.contact.name, renameTo: "admin")
                }
                members.append(member)
            }
            _ = try await admin.sync()
            print(String(format: "  %@: set up the admin and %d members (registered, contacts of the admin's) in %.1f s",
                         label, count + 1, RelayBench.seconds(since: start)))
            return (admin, Array(members.dropLast()), members.last!)
        }

        func measure(_ body: () async throws -> Void) async throws -> LargeGroupPhase {
            deposits.reset()
            let cpu = GroupBenchmark.ownCPUSeconds(), relayCPU = relay.cpuSeconds(), size = directoryBytes(relay.dataDirectory)
            let start = ContinuousClock.now
            try await body()
            let wall = RelayBench.seconds(since: start)
            let counted = deposits.current
            return LargeGroupPhase(wall: wall, cpu: GroupBenchmark.ownCPUSeconds() - cpu, relayCPU: relay.cpuSeconds() - relayCPU,
                         envelopes: counted.envelopes, bytes: counted.bytes, relayGrowth: directoryBytes(relay.dataDirectory) - size)
        }
        /// Every member syncs until `done` holds for all (at most `rounds` passes).
        func syncUntil(_ members: [Messenger], rounds: Int, _ done: (Messenger) async throws -> Bool) async throws {
            var waiting = members
            for _ in 0..<rounds where !waiting.isEmpty {
                var still: [Messenger] = []
                for member in waiting {
                    _ = try await member.sync()
                    if try await !done(member) { still.append(member) }
                }
                waiting = still
            }
            guard waiting.isEmpty else { throw BenchError("\(waiting.count) members did not get there") }
        }

        func runGroup(_ label: String, count: Int, large: Bool) async throws -> (create: LargeGroupPhase, message: LargeGroupPhase, add: LargeGroupPhase, remove: LargeGroupPhase) {
            let (admin, members, extra) = try await setUp(label, count: count)
            let everyone = members.count + 1
            // Until every member holds every member's chain: derived at once
            // from a large state; a small group's come member by member.
            func keyed(_ member: Messenger) async throws -> Bool {
                guard let summary = try await member.groupList().first else { return false }
                return summary.members.allSatisfy(\.hasKey)
            }
            let create = try await measure {
                try await admin.createGroup(name: label, members: (0..<count).map { "m\($0)" }, large: large)
                try await syncUntil(members, rounds: large ? 1 : 6, keyed)
                if !large { try await syncUntil([admin] + members, rounds: 6, keyed) }
            }
            let message = try await measure {
                let sent = try await admin.send(text: "one message to \(everyone)", to: label)
                guard sent.status == .sent else { throw BenchError("the group message was not taken by the relay: \(sent.status)") }
                try await syncUntil(members, rounds: 2) { member in
                    try await member.history(with: label).contains { $0.body == "one message to \(everyone)" }
                }
            }
            func epoch(_ wanted: UInt32) -> (Messenger) async throws -> Bool {
                { member in try await member.groupList().first?.epoch == wanted }
            }
            let remove = try await measure {
                try await admin.removeFromGroup(label, member: "m0")
                try await syncUntil(Array(members.dropFirst()), rounds: large ? 2 : 6, epoch(2))
                if !large { try await syncUntil([admin] + Array(members.dropFirst()), rounds: 6, keyed) }
            }
            let add = try await measure {
                try await admin.addToGroup(label, members: ["m\(count)"])
                try await syncUntil(Array(members.dropFirst()) + [extra], rounds: large ? 2 : 6, epoch(3))
                if !large { try await syncUntil([admin] + Array(members.dropFirst()) + [extra], rounds: 6, keyed) }
            }
            return (create, message, add, remove)
        }

        print("a §18.1 group of \(smallCount + 1) (the baseline), then a large group (§18.4) of \(largeCount + 1), on one relay:")
        let small = try await runGroup("small", count: smallCount, large: false)
        let large = try await runGroup("large", count: largeCount, large: true)
        try await http.shutdown()

        func row(_ label: String, _ phase: LargeGroupPhase, members: Int) -> String {
            String(format: "  | %@ | %.2f | %.2f | %.2f | %.2f | %d | %.1f | %.1f | %.1f |", label, phase.wall, phase.cpu, phase.relayCPU,
                   phase.cpu / Double(members) * 1000, phase.envelopes, Double(phase.bytes) / 1_048_576,
                   Double(phase.bytes) / Double(members) / 1024, Double(phase.relayGrowth) / 1_048_576)
        }
        print("  | | wall s | CPU s (members + admin) | relay CPU s | CPU ms per member | envelopes deposited | MiB deposited | KiB per member | relay database growth MiB |")
        print("  |---|---|---|---|---|---|---|---|---|")
        for (name, result, members) in [("§18.1", small, smallCount + 1), ("large", large, largeCount + 1)] {
            print(row("\(name), \(members): created, every chain set up", result.create, members: members))
            print(row("\(name), \(members): one message sent, read by all", result.message, members: members))
            print(row("\(name), \(members): created + one message read by all", result.create.adding(result.message), members: members))
            print(row("\(name): one member added", result.add, members: members))
            print(row("\(name): one member removed", result.remove, members: members))
        }
        let smallN = Double(smallCount + 1), largeN = Double(largeCount + 1)
        print(String(format: "  envelopes to set up: §18.1 %d for %d members (%.2f × n(n−1)), large %d for %d (%.2f × n)",
                     small.create.envelopes, smallCount + 1, Double(small.create.envelopes) / (smallN * (smallN - 1)),
                     large.create.envelopes, largeCount + 1, Double(large.create.envelopes) / largeN))
        print(String(format: "  envelopes to add one member: §18.1 %d (%.2f × n²), large %d (%.2f × n); to remove one: §18.1 %d, large %d",
                     small.add.envelopes, Double(small.add.envelopes) / (smallN * smallN), large.add.envelopes,
                     Double(large.add.envelopes) / largeN, small.remove.envelopes, large.remove.envelopes))
        let total = large.create.adding(large.message), baseline = small.create.adding(small.message)
        let cpuRatio = (total.cpu / largeN) / (baseline.cpu / smallN)
        let envelopeRatio = (Double(total.envelopes) / largeN) / (Double(baseline.envelopes) / smallN)
        print(String(format: "  large / §18.1 per member (create + one message read by all): CPU %.3f×, envelopes %.3f×; large total wall %.1f s (target ≤ 60 s)",
                     cpuRatio, envelopeRatio, total.wall))
    }

    /// Bytes of the files under `path` (the relay's database and its WAL).
    static func directoryBytes(_ path: String) -> Int {
        guard let files = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total = 0
        for case let file as String in files {
            total += (try? FileManager.default.attributesOfItem(atPath: path + "/" + file)[.size] as? Int) ?? 0
        }
        return total
    }
}

/// One timed phase of `LargeGroupBenchmark`.
struct LargeGroupPhase {
    var wall = 0.0, cpu = 0.0, relayCPU = 0.0, envelopes = 0, bytes = 0, relayGrowth = 0

    func adding(_ other: LargeGroupPhase) -> LargeGroupPhase {
        LargeGroupPhase(wall: wall + other.wall, cpu: cpu + other.cpu, relayCPU: relayCPU + other.relayCPU,
                        envelopes: envelopes + other.envelopes, bytes: bytes + other.bytes, relayGrowth: relayGrowth + other.relayGrowth)
    }
}

/// Envelopes stored at the relay and their bytes, across every member's transport.
final class DepositTally: Sendable {
    private let counts = Mutex((envelopes: 0, bytes: 0))
    var current: (envelopes: Int, bytes: Int) { counts.withLock { $0 } }
    func reset() { counts.withLock { $0 = (0, 0) } }
    func add(envelopes: Int, bytes: Int) { counts.withLock { $0.envelopes += envelopes; $0.bytes += bytes } }
}

/// Counts what the relay took: one envelope per mailbox a deposit or a
/// fan-out reached (a fan-out stores its bytes once per member).
final class TallyingTransport: ForwardingTransport {
    let inner: any RelayTransport
    let tally: DepositTally

    init(_ inner: any RelayTransport, tally: DepositTally) {
        self.inner = inner
        self.tally = tally
    }

    func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                 credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt {
        let receipt = try await inner.deposit(envelope, to: recipient, requestID: requestID, credential: credential)
        tally.add(envelopes: 1, bytes: envelope.count)
        return receipt
    }

    func depositFanOut(_ envelope: [UInt8], requestID: String,
                       to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        let results = try await inner.depositFanOut(envelope, requestID: requestID, to: recipients)
        let taken = results.filter { if case .success = $0 { true } else { false } }.count
        tally.add(envelopes: taken, bytes: taken * envelope.count)
        return results
    }
}
