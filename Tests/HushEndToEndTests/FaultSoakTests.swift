import Foundation
import Glibc
import Testing

/// The fault soak: three users write to each other through a path that
/// corrupts deposits and sync pages, reorders pages, sends deposits twice,
/// holds requests back and cuts answers (`FaultProxy`), while their `hush
/// send`/`hush sync` and the relay are killed with SIGKILL at random and one
/// user's disk is full for a stretch. At the end every message its sender stored is in its
/// recipient's history exactly once, nothing is set aside or left at the
/// relay, and every database passes its integrity check. (Order is counted,
/// not required: a message whose deposit had to be retried arrives after
/// those that went through meanwhile, and the recipient shows arrival order.)
///
/// `make test` runs a short one; `make soak` sets `HUSH_SOAK_MESSAGES`.
/// A failing run prints its seed: replay it with `HUSH_SOAK_SEED`.
@Suite struct FaultSoakTests {
    @Test func nothingLostOrDuplicatedThroughAFaultyPathKillsAndAFullDisk() throws {
        let settings = SoakSettings.fromEnvironment(defaultMessages: 36)
        var soak = try FaultSoak(settings: settings)
        try soak.run()
        let figures = try soak.settleAndCount()
        print(figures.summary + "; in transit: \(soak.proxy.figures); disk full: \(soak.diskFullRefusals) commands refused")
        figures.expectNothingLost()
        #expect(soak.proxy.figures.corruptedDeposits + soak.proxy.figures.corruptedPages > 0, "the path damaged nothing: \(soak.proxy.figures)")
    }
}

struct FaultSoak {
    static let faults = FaultProxy.Odds(corruptDeposit: 0.15, corruptSyncPage: 0.15, reorderSyncPage: 0.2, duplicateDeposit: 0.1,
                                        delay: 0.05, cutAfterAnswer: 0.05)

    let settings: SoakSettings
    let bed: Testbed
    let proxy: FaultProxy
    let users: [User]
    var random: SoakRandom
    var figures = SoakFigures()
    var diskFullRefusals = 0
    /// The user whose disk is full, and for how many more turns.
    var diskFull: (user: String, turns: Int)?

    init(settings: SoakSettings) throws {
        self.settings = settings
        random = SoakRandom(seed: settings.seed)
        figures.seed = settings.seed
        let bed = try Testbed("fault-soak")
        let proxy = try FaultProxy(forwardingTo: bed.relay.port, odds: FaultProxy.Odds(), seed: settings.seed)
        try bed.relay.acceptLogins(for: proxy.url)
        users = try ["alice", "bob", "carol"].map { try bed.newUser($0, relayURL: proxy.url) }
        self.bed = bed
        self.proxy = proxy
    }

    /// Everyone meets everyone on a clean path, then the faults start.
    mutating func run() throws {
        for (index, first) in users.enumerated() {
            for second in users[(index + 1)...] { try bed.meet(first, second, first: "hello \(second.name) from \(first.name)") }
        }
        for user in users { try bed.sync(user) }
        proxy.setOdds(Self.faults)
        for sent in 0..<settings.messages {
            let sender = users[Int.random(in: 0..<users.count, using: &random)]
            let others = users.filter { $0.name != sender.name }
            let recipient = others[Int.random(in: 0..<others.count, using: &random)]
            if diskFull == nil, random.chance(0.05) { diskFull = (users[Int.random(in: 0..<users.count, using: &random)].name, 3) }
            try command(sender, ["send", recipient.name, "fault soak \(sender.name)->\(recipient.name) \(sent)", "--json"])
            figures.attempted += 1
            try command(recipient, ["sync", "--json"])
            if random.chance(0.1) { try command(sender, ["retry"]) }
            if random.chance(0.04) {
                // The relay dies between two requests and comes back on the same port.
                bed.relay.kill()
                figures.relayKills += 1
                try bed.relay.start()
            }
            if let full = diskFull { diskFull = full.turns > 1 ? (full.user, full.turns - 1) : nil }
        }
    }

    /// Runs `hush ARGUMENTS` as `user`: on a full disk while that user's
    /// disk is full, and with some probability SIGKILLed at a random point.
    mutating func command(_ user: User, _ arguments: [String]) throws {
        var limit: Int?
        if diskFull?.user == user.name {
            let size = ((try? FileManager.default.attributesOfItem(atPath: user.home + "/messages.db"))?[.size] as? Int) ?? 0
            limit = size
        }
        let result: CommandResult
        if random.chance(0.12) {
            let child = try ChildProcess(arguments, environment: bed.environment(for: user), fileSizeLimit: limit)
            usleep(UInt32.random(in: 0..<250_000, using: &random))
            if child.isRunning {
                child.signal(SIGKILL)
                if arguments.first == "send" { figures.sendKills += 1 } else { figures.syncKills += 1 }
            }
            result = child.finish(timeout: 60)
        } else {
            result = try bed.hush(user, arguments, fileSizeLimit: limit)
        }
        if limit != nil, result.status != 0 { diskFullRefusals += 1 }
        let ourKill = result.signalled && result.status == 128 + SIGKILL
        if !ourKill && result.crashed { figures.crashes.append("\(result)") }
    }

    /// Faults off, room on every disk: retries and syncs until nothing
    /// moves, then every pair's histories are compared.
    mutating func settleAndCount() throws -> SoakFigures {
        proxy.setOdds(FaultProxy.Odds())
        diskFull = nil
        for _ in 0..<8 {
            for user in users {
                _ = try bed.hush(user, ["retry"])
                _ = try bed.hush(user, ["sync", "--json"])
            }
            var quiet = true
            for user in users where try !bed.outbox(user).isEmpty || bed.storedEnvelopes(for: user) > 0 { quiet = false }
            if quiet { break }
        }
        for sender in users {
            for recipient in users where recipient.name != sender.name {
                let sent = try bed.history(sender, with: recipient.name).outgoing
                let received = try bed.history(recipient, with: sender.name).incoming
                figures.compare(sent: sent, received: received)
            }
        }
        for user in users {
            figures.leftOnRelay += try bed.storedEnvelopes(for: user)
            figures.pendingInOutbox += try bed.outbox(user).count
            let audit = try bed.hush(user, ["audit", "local", "--json"]).json()
            figures.setAside += (audit["quarantined"] as? [Any])?.count ?? 0
            if audit["integrity"] as? Bool != true { figures.integrityProblems += 1 }
        }
        return figures
    }
}
