import AsyncHTTPClient
import Foundation
import HushCrypto
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore

/// `HushBench groups [--members N] [--rounds R]`: one message to a group of
/// N members (100) beside N separate direct messages, in one run on one
/// relay (SQLCipher driver, rate limits open): the sender's CPU and wall
/// time, the relay's CPU, requests and bytes uploaded; then receiving: one
/// member's sync of a group message beside its sync of a direct one.
enum GroupBenchmark {
    static func run(arguments: [String]) async throws {
        func option(_ name: String, _ fallback: Int) -> Int {
            arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil } ?? fallback
        }
        let count = option("--members", 100), rounds = option("--rounds", 10)
        // The group side is cheap per message: more of them, for a CPU figure above the clock's tick.
        let groupRounds = rounds * 5
        let relay = try RelayBench.ChildRelay(driver: "sqlcipher")
        defer { relay.stop() }
        let http = RelayBench.makeHTTPClient(connections: 8)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hush-group-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        func participant(_ name: String) throws -> (Messenger, CountingTransport) {
            let store = try MessageStore(path: root.appendingPathComponent("\(name).db").path, key: SecureBytes(randomCount: 32))
            let transport = CountingTransport(RelayClientTransport(client: RelayClient(baseURL: relay.baseURL, httpClient: http)))
            return (Messenger(identity: IdentityKeyPair.generate(), store: store, transport: transport), transport)
        }

        print("setting up: alice and \(count) members, each a contact of alice's, then a group of all of them …")
        let setupStart = ContinuousClock.now
        let (alice, uploads) = try participant("alice")
        try await alice.register()
        var members: [Messenger] = []
        for index in 0..<count {
            let (member, _) = try participant("m\(index)")
            try await member.register()
            try await alice.addContact(name: "m\(index)", address: member.identity.address.description)
            try await alice.send(text: "warm-up", to: "m\(index)")
            members.append(member)
        }
        // Each member accepts alice's request, which hands her its delivery credential.
        for member in members {
            _ = try await member.sync()
            if let request = try await member.messageRequests().first { try await member.acceptRequest(name: request.contact.name, renameTo: "alice") }
        }
        _ = try await alice.sync()
        try await alice.createGroup(name: "bench", members: (0..<count).map { "m\($0)" })
        let receiver = members[0]
        // The receiver joins, sends its own key to the other members (sessions with each), and holds alice's.
        _ = try await receiver.sync()
        _ = try await receiver.sync()
        print(String(format: "  set up in %.1f s", RelayBench.seconds(since: setupStart)))

        // Sending.
        func measure(_ body: () async throws -> Void) async throws -> (wall: Double, cpu: Double, relayCPU: Double, requests: Int, bytes: Int) {
            uploads.reset()
            let cpu = ownCPUSeconds(), relayCPU = relay.cpuSeconds(), start = ContinuousClock.now
            try await body()
            let wall = RelayBench.seconds(since: start)
            let sent = uploads.uploaded
            return (wall, ownCPUSeconds() - cpu, relay.cpuSeconds() - relayCPU, sent.requests, sent.bytes)
        }
        let group = try await measure {
            for round in 0..<groupRounds {
                let message = try await alice.send(text: "to the group, round \(round)", to: "bench")
                guard message.status == .sent else { throw BenchError("a group message was not taken by the relay: \(message.status)") }
            }
        }
        let direct = try await measure {
            for round in 0..<rounds {
                for index in 0..<count { try await alice.send(text: "to one member, round \(round)", to: "m\(index)") }
            }
        }
        let perRound = Double(rounds)
        print("sending one message to \(count) members (per message; group \(groupRounds) messages, direct \(rounds) rounds of \(count)):")
        print("  | | sender CPU ms | sender wall ms | relay CPU ms | requests | bytes uploaded |")
        print("  |---|---|---|---|---|---|")
        let groupPer = (cpu: group.cpu / Double(groupRounds), wall: group.wall / Double(groupRounds), relay: group.relayCPU / Double(groupRounds),
                        requests: Double(group.requests) / Double(groupRounds), bytes: Double(group.bytes) / Double(groupRounds))
        let directPer = (cpu: direct.cpu / perRound, wall: direct.wall / perRound, relay: direct.relayCPU / perRound,
                         requests: Double(direct.requests) / perRound, bytes: Double(direct.bytes) / perRound)
        for (label, figures) in [("group (one encryption, one fan-out)", groupPer), ("\(count) direct messages", directPer)] {
            print(String(format: "  | %@ | %.2f | %.2f | %.2f | %.0f | %.0f |", label, figures.cpu * 1000, figures.wall * 1000,
                         figures.relay * 1000, figures.requests, figures.bytes))
        }
        print(String(format: "  group / direct: sender CPU %.3f×, wall %.3f×, relay CPU %.3f×, bytes %.3f×",
                     groupPer.cpu / directPer.cpu, groupPer.wall / directPer.wall, groupPer.relay / directPer.relay,
                     groupPer.bytes / directPer.bytes))

        // Receiving: the receiver's sync of one group message beside one direct message.
        var groupReceive: [Double] = [], directReceive: [Double] = []
        _ = try await receiver.sync()
        for round in 0..<rounds {
            try await alice.send(text: "group receive \(round)", to: "bench")
            var cpu = ownCPUSeconds()
            guard try await receiver.sync().received == 1 else { throw BenchError("the receiver did not get the group message") }
            groupReceive.append(ownCPUSeconds() - cpu)
            try await alice.send(text: "direct receive \(round)", to: "m0")
            cpu = ownCPUSeconds()
            guard try await receiver.sync().received == 1 else { throw BenchError("the receiver did not get the direct message") }
            directReceive.append(ownCPUSeconds() - cpu)
        }
        let groupMean = groupReceive.reduce(0, +) / perRound, directMean = directReceive.reduce(0, +) / perRound
        try await http.shutdown()
        print(String(format: "receiving (a sync that stores one message and sends its receipt, CPU ms): group %.2f, direct %.2f (%.2f×)",
                     groupMean * 1000, directMean * 1000, groupMean / directMean))
    }

    /// This process's CPU time (user + system) from getrusage: microseconds, not /proc's clock ticks.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
