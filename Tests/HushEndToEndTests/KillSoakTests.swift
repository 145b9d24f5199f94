import Foundation
import Glibc
import Testing

/// The kill -9 soak: README's flow between alice and bob, then messages both
/// ways while `hush send`, `hush sync` and the relay are killed with SIGKILL
/// at random points (the relay sometimes in the middle of a send) and the
/// relay stays down for a few turns. At the end, after retries and syncs,
/// every message its sender stored must be in the recipient's history
/// exactly once; nothing may be set aside, left at the relay, or stuck.
///
/// `make test` runs a short one; `make soak` sets `HUSH_SOAK_MESSAGES`.
/// A failing run prints its seed: replay it with `HUSH_SOAK_SEED`.
@Suite struct KillSoakTests {
    @Test func nothingLostOrDuplicatedWhileProcessesAreKilled() throws {
        let settings = SoakSettings.fromEnvironment(defaultMessages: 30)
        var soak = try KillSoak(settings: settings)
        try soak.run()
        let figures = try soak.settleAndCount()
        print(figures.summary)
        figures.expectNothingLost()
    }
}

/// One soak run: the testbed, the two users, the random schedule and what it did.
struct KillSoak {
    let settings: SoakSettings
    let bed: Testbed
    let alice: User
    let bob: User
    var random: SoakRandom
    var figures = SoakFigures()
    /// Turns the relay has left to stay down (0: it runs).
    var relayDownTurns = 0

    init(settings: SoakSettings) throws {
        self.settings = settings
        random = SoakRandom(seed: settings.seed)
        figures.seed = settings.seed
        bed = try Testbed("soak")
        alice = try bed.newUser("alice")
        bob = try bed.newUser("bob")
    }

    /// README's flow first (alice adds bob and writes; bob syncs and adds
    /// alice back), then `settings.messages` sends in turns of 1–4 messages.
    mutating func run() throws {
        try bed.addContact(alice, bob)
        try bed.send(alice, to: "bob", "soak alice->bob opening")
        try bed.sync(bob)
        try bed.addContact(bob, alice)
        var sent = 0
        var fromAlice = false
        while sent < settings.messages {
            fromAlice.toggle()
            let (sender, recipient, name) = fromAlice ? (alice, bob, "bob") : (bob, alice, "alice")
            for _ in 0..<Int.random(in: 1...4, using: &random) where sent < settings.messages {
                try send("soak \(sender.name)->\(name) \(sent)", from: sender, to: name)
                sent += 1
            }
            try maybeKilled(recipient, ["sync", "--json"])
            if random.chance(0.1) { try maybeKilled(sender, ["retry"]) }
            try advanceRelayOutage()
        }
    }

    /// One `hush send`: run to the end, killed at a random point, or run
    /// while the relay is killed under it.
    mutating func send(_ text: String, from sender: User, to name: String) throws {
        figures.attempted += 1
        if relayDownTurns == 0, random.chance(0.04) {
            let child = try bed.spawn(sender, ["send", name, text, "--json"])
            usleep(UInt32.random(in: 0..<150_000, using: &random))
            bed.relay.kill()
            figures.relayKills += 1
            relayDownTurns = Int.random(in: 0...2, using: &random)
            record(child.finish(timeout: 60))
            if relayDownTurns == 0 { try bed.relay.start() }
            return
        }
        try maybeKilled(sender, ["send", name, text, "--json"])
    }

    /// Runs `hush ARGUMENTS`, and with some probability SIGKILLs it at a random point.
    mutating func maybeKilled(_ user: User, _ arguments: [String]) throws {
        let child = try bed.spawn(user, arguments)
        if random.chance(0.15) {
            usleep(UInt32.random(in: 0..<250_000, using: &random))
            if child.isRunning {
                child.signal(SIGKILL)
                if arguments.first == "send" { figures.sendKills += 1 } else { figures.syncKills += 1 }
            }
        }
        record(child.finish(timeout: 60))
    }

    mutating func advanceRelayOutage() throws {
        guard relayDownTurns > 0 else { return }
        relayDownTurns -= 1
        if relayDownTurns == 0 { try bed.relay.start() }
    }

    /// A crash is a process that died of a signal we did not send, or printed a trace.
    mutating func record(_ result: CommandResult) {
        let ourKill = result.signalled && result.status == 128 + SIGKILL
        if !ourKill && result.crashed { figures.crashes.append("\(result)") }
    }

    /// Brings the relay back, lets both sides retry and sync until nothing
    /// moves, then compares both histories and counts what went wrong.
    mutating func settleAndCount() throws -> SoakFigures {
        if !bed.relay.isRunning { try bed.relay.start() }
        for _ in 0..<8 {
            for user in [alice, bob] {
                record(try bed.hush(user, ["retry"]))
                record(try bed.hush(user, ["sync", "--json"]))
            }
            let quiet = try bed.outbox(alice).isEmpty && bed.outbox(bob).isEmpty
                && bed.storedEnvelopes(for: alice) == 0 && bed.storedEnvelopes(for: bob) == 0
            if quiet { break }
        }
        let fromAlice = try bed.history(alice, with: "bob"), toBob = try bed.history(bob, with: "alice")
        let fromBob = try bed.history(bob, with: "alice"), toAlice = try bed.history(alice, with: "bob")
        figures.compare(sent: fromAlice.outgoing, received: toBob.incoming)
        figures.compare(sent: fromBob.outgoing, received: toAlice.incoming)
        figures.leftOnRelay = try bed.storedEnvelopes(for: alice) + bed.storedEnvelopes(for: bob)
        figures.pendingInOutbox = try bed.outbox(alice).count + bed.outbox(bob).count
        for user in [alice, bob] {
            let audit = try bed.hush(user, ["audit", "local", "--json"]).json()
            figures.setAside += (audit["quarantined"] as? [Any])?.count ?? 0
            if audit["integrity"] as? Bool != true { figures.integrityProblems += 1 }
        }
        return figures
    }
}

/// What a soak run did and what it found.
struct SoakFigures {
    var seed: UInt64 = 0
    var attempted = 0
    var stored = 0
    var relayKills = 0
    var sendKills = 0
    var syncKills = 0
    var lost = 0
    var duplicated = 0
    /// Received but never stored as sent by the other side.
    var phantom = 0
    var outOfOrder = 0
    /// Outgoing messages still pending or failed after settling.
    var stuck = 0
    var setAside = 0
    var leftOnRelay = 0
    var pendingInOutbox = 0
    var integrityProblems = 0
    var crashes: [String] = []

    /// Counts one direction: what the sender stored against what the recipient stored.
    mutating func compare(sent: [Message], received: [Message]) {
        stored += sent.count
        let receivedBodies = received.bodies
        let copies = Dictionary(receivedBodies.map { ($0, 1) }, uniquingKeysWith: +)
        for message in sent {
            switch copies[message.body, default: 0] {
            case 0: lost += 1
            case 1: break
            default: duplicated += 1
            }
            if message.status == "pending" || message.status == "failed" { stuck += 1 }
        }
        let sentBodies = Set(sent.bodies)
        phantom += receivedBodies.filter { !sentBodies.contains($0) }.count
        // Pairs the recipient shows in the opposite order of the sender.
        let order = Dictionary(sent.bodies.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let positions = receivedBodies.compactMap { order[$0] }
        outOfOrder += zip(positions, positions.dropFirst()).filter { $0 > $1 }.count
    }

    /// The promise every soak checks: nothing lost, duplicated, invented,
    /// set aside, left behind or stuck; sound databases; no crash.
    func expectNothingLost(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(lost == 0, "\(summary)", sourceLocation: sourceLocation)
        #expect(duplicated == 0, "\(summary)", sourceLocation: sourceLocation)
        #expect(phantom == 0, "\(summary)", sourceLocation: sourceLocation)
        #expect(setAside == 0, "\(summary)", sourceLocation: sourceLocation)
        #expect(leftOnRelay == 0, "\(summary)", sourceLocation: sourceLocation)
        #expect(stuck == 0, "\(summary)", sourceLocation: sourceLocation)
        #expect(integrityProblems == 0, "\(summary)", sourceLocation: sourceLocation)
        #expect(crashes.isEmpty, "\(crashes.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }

    var summary: String {
        "soak (seed \(seed)): \(attempted) sends attempted, \(stored) stored by their senders; kills: relay \(relayKills), "
            + "send \(sendKills), sync \(syncKills); lost \(lost), duplicated \(duplicated), phantom \(phantom), "
            + "set aside \(setAside), left on relay \(leftOnRelay), still in outbox \(pendingInOutbox), stuck \(stuck), "
            + "out of order \(outOfOrder), integrity problems \(integrityProblems), crashes \(crashes.count)"
    }
}
