import Foundation
import Glibc
import Testing

/// Several processes on one home, and `hush audit relay` beside a live relay:
/// nothing may be lost when a long-running process and short ones share a
/// database file.
///
/// Both broke the same way (issue 29, item 1): a process that held a
/// connection opened a second one (the background checkpointer, once the log
/// passed 1,000 frames) through code that opened and closed the database file
/// with a raw descriptor first. That `close()` dropped every POSIX lock the
/// process held on the file; the next *other* process to close its connection
/// then believed it was the last, checkpointed, and deleted the -wal and -shm
/// files under the first, which went on writing into an unlinked log.
///
/// `make test` runs bursts just past the checkpoint threshold; `make soak`
/// sets `HUSH_SOAK_MESSAGES` for longer ones.
@Suite struct SharedHomeTests {
    /// A database's log holds one frame of 4,096 + 24 bytes per page written;
    /// the checkpointer's second connection opens past 1,000 frames.
    static let checkpointThresholdBytes = 1_000 * (4_096 + 24)

    /// The largest size a file reached (the log keeps its size after a
    /// checkpoint, as no size limit is set).
    static func size(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    @Test func aListenerAndOneShotCommandsShareAHomeWithoutLosingAnything() throws {
        let burst = SoakSettings.fromEnvironment(defaultMessages: 260).messages
        let bed = try Testbed("shared-home")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        // Bob holds alice's delivery credential: his bursts are not first contacts.
        try bed.acquaint(alice, bob, answer: "bob answers before the bursts")
        let log = alice.home + "/messages.db-wal"

        // Alice keeps `hush listen` running on her home for the whole test.
        let listener = try bed.spawn(alice, ["listen", "--json"])
        try #require(listener.wait(timeout: 30) { $0.stdout.contains("\"online\":true") }, "listen never connected: \(listener.stderr)")

        var aliceSent: [String] = []
        var bobSent = ["bob answers before the bursts"]
        for round in 0..<3 {
            // Bob's burst arrives by push and is stored by alice's listener,
            // taking her log past the checkpoint threshold.
            let lines = (0..<burst).map { "burst \(round) message \($0)" }
            try bed.succeed(bob, ["chat", "alice"], stdin: lines.joined(separator: "\n") + "\n")
            bobSent += lines
            let last = try #require(lines.last)
            #expect(listener.wait(timeout: 240) { $0.stdout.contains(last) }, "listen did not store round \(round): \(listener.stderr)")

            // One-shot commands of alice's in processes of their own, beside the listener.
            for n in 0..<2 {
                let text = "alice one-shot \(round).\(n)"
                try bed.send(alice, to: "bob", text)
                aliceSent.append(text)
            }
            try bed.succeed(alice, ["history", "bob", "--json", "--no-receipts", "--limit", "5"])
            try bed.succeed(alice, ["sync", "--json"])
            #expect(access(log, F_OK) == 0 && access(alice.home + "/messages.db-shm", F_OK) == 0,
                    "alice's log and shared memory vanished under her running listener (round \(round))")
            #expect(listener.isRunning, "listen ended: \(listener.stderr)")
        }
        #expect(Self.size(log) > Self.checkpointThresholdBytes, "the bursts never took alice's log past the checkpoint threshold")

        // What the listener wrote after the one-shot commands is seen by them too.
        let late = "bob writes while alice's listener still runs"
        try bed.send(bob, to: "alice", late)
        bobSent.append(late)
        #expect(listener.wait(timeout: 60) { $0.stdout.contains(late) })
        let seen = try bed.history(alice, with: "bob").incoming.count(late) == 1
        #expect(seen, "what the listener stored is invisible to `hush history`")

        // Alice's one-shot sends were told to her listener too, once each (as they were queued).
        for text in aliceSent {
            #expect(listener.stdout.components(separatedBy: "\"\(text)\"").count - 1 == 1, "listen told \"\(text)\" not once")
        }

        listener.signal(SIGTERM)
        let ended = listener.finish(timeout: 30)
        #expect(ended.status == 0 && !ended.crashed, "\(ended)")

        // Bob reads everything alice sent from her one-shot commands, nothing set aside.
        let report = try bed.sync(bob)
        #expect(report["quarantined"] as? Int == 0, "bob set alice's messages aside: \(report)")
        let bobs = try bed.history(bob, with: "alice")
        for text in aliceSent { #expect(bobs.count(text) == 1, "bob has \"\(text)\" \(bobs.count(text)) times") }

        // After the listener ended, alice's own history still has all of it, once each, with distinct ids.
        let history = try bed.history(alice, with: "bob")
        for text in aliceSent { #expect(history.outgoing.count(text) == 1, "alice's own \"\(text)\" is stored \(history.count(text)) times") }
        let missing = bobSent.filter { history.incoming.count($0) != 1 }
        #expect(missing.isEmpty, "\(missing.count) of bob's messages are missing or duplicated, e.g. \(missing.prefix(3))")
        let ids = history.compactMap { $0.raw["id"] as? Int }
        #expect(Set(ids).count == ids.count, "message ids were reused")
        for user in [alice, bob] {
            let audit = try bed.succeed(user, ["audit", "local", "--json"]).json()
            #expect((audit["quarantined"] as? [Any])?.isEmpty == true, "\(user.name) set envelopes aside: \(audit)")
        }
    }

    @Test func auditingALiveRelayUnderLoadLosesNoDeposit() throws {
        let burst = SoakSettings.fromEnvironment(defaultMessages: 260).messages
        let bed = try Testbed("live-audit")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let log = bed.relay.dataDirectory + "/relay.db-wal"

        // Alice stays offline: every message bob sends waits in her mailbox.
        var sent: [String] = []
        for round in 0..<3 {
            let lines = (0..<burst).map { "deposit \(round).\($0)" }
            try bed.succeed(bob, ["chat", "alice"], stdin: lines.joined(separator: "\n") + "\n")
            sent += lines
            #expect(try bed.outbox(bob).isEmpty, "bob's chat left messages unsent")
            // `hush audit relay` is a process of its own that opens relay.db beside the relay.
            let (result, _) = try bed.auditRelay()
            #expect(result.status == 0, "\(result)")
            #expect(access(log, F_OK) == 0, "the audit deleted the running relay's log (round \(round))")
        }
        #expect(Self.size(log) > Self.checkpointThresholdBytes, "the deposits never took the relay's log past the checkpoint threshold")

        // Every deposit the relay answered is on its disk: kill -9, start again, count.
        let stored = try bed.storedEnvelopes(for: alice)
        #expect(stored >= sent.count)
        bed.relay.kill()
        try bed.relay.start()
        #expect(try bed.storedEnvelopes(for: alice) == stored, "acknowledged deposits were lost")
        let report = try bed.sync(alice)
        #expect(report["quarantined"] as? Int == 0, "\(report)")
        let history = try bed.history(alice, with: "bob")
        let missing = sent.filter { history.incoming.count($0) != 1 }
        #expect(missing.isEmpty, "\(missing.count) of \(sent.count) messages are missing or duplicated, e.g. \(missing.prefix(3))")
    }
}
