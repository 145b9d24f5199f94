import Foundation
import Testing

/// A full disk (simulated per process with RLIMIT_FSIZE: writes past the
/// limit fail with EFBIG) is reported clearly, never crashes, and loses
/// nothing: what could not be stored is not acknowledged, and once there is
/// room everything arrives exactly once.
@Suite struct DiskFullTests {
    private func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func aClientWhoseDiskIsFullKeepsItsMessagesAtTheRelayUntilThereIsRoom() throws {
        let bed = try Testbed("disk-full-client")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.sync(alice)
        // 16 KB each, 640 KB in all: twice the room Bob's files have left, even
        // written as one page per transaction (a sync stores a page at once).
        let texts = (1...40).map { "message \($0) " + String(repeating: "padding ", count: 2_000) }
        for text in texts { try bed.send(alice, to: "bob", text) }

        // Bob's database may not grow: every file he writes is capped at its current size.
        let limit = fileSize(bob.home + "/messages.db")
        let full = try bed.hush(bob, ["sync"], fileSizeLimit: limit)
        #expect(full.status != 0 && !full.crashed, "\(full)")
        #expect(full.stderr.contains("the disk may be full"), "says what went wrong and what to do: \(full.stderr)")
        #expect(try bed.storedEnvelopes(for: bob) > 0, "what was not stored stays at the relay")

        // Sending with no room at all (not even for the journal) is refused
        // before anything leaves the machine.
        let send = try bed.hush(bob, ["send", "alice", "written on a full disk"], fileSizeLimit: 1024)
        #expect(send.status != 0 && !send.crashed, "\(send)")
        #expect(send.stderr.contains("the disk may be full"), "says what went wrong and what to do: \(send.stderr)")

        // Room again: everything arrives once, in order, and the database is sound.
        try bed.sync(bob)
        let received = try bed.history(bob, with: "alice").incoming.bodies
        #expect(received == ["hello"] + texts, "\(received.count) stored")
        #expect(try bed.storedEnvelopes(for: bob) == 0)
        let doctor = try bed.hush(bob, ["doctor"])
        #expect(doctor.status == 0, "\(doctor)")
    }

    /// `hush listen` whose disk fills up said nothing at all: every push
    /// failed to store and was dropped from its output. It says so once, with
    /// what to do, and still acknowledges nothing it could not store.
    @Test func aListenerWhoseDiskIsFullSaysSoOnceAndLosesNothing() throws {
        let bed = try Testbed("disk-full-listen")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.sync(alice)
        let listener = try ChildProcess(["listen", "--json"], environment: bed.environment(for: bob),
                                        fileSizeLimit: fileSize(bob.home + "/messages.db"))
        #expect(listener.wait(timeout: 20) { $0.stdout.contains("\"online\":true") }, "listen never connected: \(listener.stderr)")
        let texts = (1...40).map { "pushed to a full disk \($0) " + String(repeating: "padding ", count: 40) }
        for text in texts { try bed.send(alice, to: "bob", text) }
        #expect(listener.wait(timeout: 30) { $0.stdout.contains("\"event\":\"syncFailed\"") }, "the listener went quiet: \(listener.stdout)")
        listener.signal(SIGTERM)
        let result = listener.finish(timeout: 20)
        #expect(result.status == 0 && !result.crashed, "stops when asked: \(result)")
        let failures = result.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"syncFailed\"") }
        #expect(failures.first?.contains("the disk may be full") == true, "says what went wrong and what to do: \(failures)")
        #expect((1...3).contains(failures.count), "told once per kind of failure, not once per push: \(failures.count)")
        #expect(try bed.storedEnvelopes(for: bob) > 0, "what was not stored stays at the relay")

        // Room again: everything arrives once, in order.
        try bed.sync(bob)
        let received = try bed.history(bob, with: "alice").incoming.bodies
        #expect(received.filter { texts.contains($0) } == texts, "\(received.count) stored")
        #expect(try bed.storedEnvelopes(for: bob) == 0)
    }

    /// A daemon whose disk fills up said nothing where its operator looks
    /// (only a subscribed client heard of it, and `daemon status` looked
    /// healthy, a walkthrough): it says so on its standard error now.
    @Test func aDaemonWhoseDiskIsFullSaysSoOnItsStandardError() throws {
        let bed = try Testbed("disk-full-daemon")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.sync(alice)
        let daemon = try ChildProcess(["daemon"], environment: bed.environment(for: bob), fileSizeLimit: fileSize(bob.home + "/messages.db"))
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        #expect(daemon.wait(timeout: 30) { $0.stderr.contains("hush daemon: serving") }, "\(daemon.stderr)")
        for index in 1...40 { try bed.send(alice, to: "bob", "pushed to a daemon's full disk \(index) " + String(repeating: "padding ", count: 40)) }
        #expect(daemon.wait(timeout: 30) { $0.stderr.contains("cannot be stored or fetched now, and stays at the relay") }, "\(daemon.stderr)")
    }

    @Test func aRelayWhoseDiskIsFullRefusesDepositsAndTheOutboxDeliversThemLater() throws {
        let bed = try Testbed("disk-full-relay")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.sync(alice)

        bed.relay.kill()
        // Room to start (and replay its journal), not for thirty deposits.
        bed.relay.fileSizeLimit = fileSize(bed.relay.dataDirectory + "/relay.db") + 64 * 1024
        try bed.relay.start()
        let texts = (1...30).map { "while the relay's disk is full \($0) " + String(repeating: "padding ", count: 40) }
        var refused = 0
        for text in texts {
            let result = try bed.hush(alice, ["send", "bob", text, "--json"])
            #expect(!result.crashed && [0, 22, 25].contains(result.status), "\(result)")
            if result.status != 0 {
                refused += 1
                #expect(result.stderr.contains("its disk is full or failing"), "the relay says why: \(result.stderr)")
            }
        }
        #expect(refused > 0, "the relay could not have stored all of them")

        bed.relay.kill()
        bed.relay.fileSizeLimit = nil
        try bed.relay.start()
        try bed.succeed(alice, ["retry"])
        try bed.sync(bob)
        let received = try bed.history(bob, with: "alice").incoming.bodies
        #expect(texts.allSatisfy { text in received.filter { $0 == text }.count == 1 }, "\(received.count) received")
        #expect(try bed.outbox(alice).isEmpty)
    }
}
