import Foundation
import Testing

/// One home per key (docs/PROTOCOL.md §19.4): a backup restored on a new
/// machine while the old home still exists. Before, the old home went on
/// fetching from the shared mailbox (taking what was sealed for the restored
/// home's sessions) and sending on sessions its contact had left: its
/// messages showed as sent and were never read, and the two sides traded
/// decryption errors at every sync for ever.
@Suite struct ReplacedHomeTests {
    /// Alice and bob, acquainted, and alice's recovery key and a backup of her home.
    static func acquaintedWithBackup(_ label: String) throws -> (bed: Testbed, alice: User, bob: User, key: String, archive: String) {
        let bed = try Testbed(label)
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        return (bed, alice, bob, try BackupTests.recoveryKey(bed, alice), try BackupTests.backup(bed, alice))
    }

    /// `alice`'s archive restored on "another machine": the home
    /// `machines/alice-NAME` (its folder made), and what the restore said.
    static func restore(_ bed: Testbed, _ alice: User, _ archive: String, key: String, as name: String,
                        _ options: [String] = []) throws -> (user: User, result: CommandResult) {
        try FileManager.default.createDirectory(atPath: bed.root + "/machines", withIntermediateDirectories: true)
        let user = User(name: "alice", home: bed.root + "/machines/alice-" + name, address: alice.address, identityKey: alice.identityKey)
        return (user, try BackupTests.restore(bed, archive, home: user.home, key: key, options))
    }

    @Test func aHomeRestoredElsewhereStopsTheOldOneAndNothingIsLost() throws {
        let (bed, alice, bob, key, archive) = try Self.acquaintedWithBackup("replaced")
        // The old home listens live while the restore happens elsewhere.
        let listener = try bed.spawn(alice, ["listen", "--json", "--timeout", "60"])
        Thread.sleep(forTimeInterval: 1)

        let (restoredAlice, restored) = try Self.restore(bed, alice, archive, key: key, as: "new")
        #expect(restored.status == 0, "\(restored)")

        // The live old home learns it at once (the relay closed its socket) and stops.
        let listened = listener.finish(timeout: 20)
        #expect(listened.status == 27, "\(listened)")
        #expect(listened.stderr.contains("another home registered this account"), "\(listened)")

        // Nothing more leaves the old home, and it fetches nothing.
        let oldSend = try bed.hush(alice, ["send", "bob", "from the old home"])
        #expect(oldSend.status == 27, "\(oldSend)")
        #expect(oldSend.stderr.contains("Use the other home"), "\(oldSend)")
        #expect(!oldSend.stderr.contains("from the old home"), "no message text in errors: \(oldSend)")
        try bed.send(bob, to: "alice", "while you moved")
        let oldSync = try bed.hush(alice, ["sync", "--json"])
        #expect(oldSync.status == 27, "\(oldSync)")
        #expect(try bed.history(alice, with: "bob").count("from the old home") == 0, "the home knew: refused before sealing")
        let oldRegister = try bed.hush(alice, ["register"])
        #expect(oldRegister.status == 27, "the old home cannot take the key back: \(oldRegister)")
        let whoami = try bed.succeed(alice, ["whoami", "--json"]).json()
        #expect(whoami["registered"] as? Bool == false && whoami["replacedAt"] is String, "\(whoami)")
        #expect(try bed.succeed(restoredAlice, ["whoami", "--json"]).json()["replacedAt"] is NSNull)
        // `hush doctor` names it as a problem; a backup of the old home still works, and says what restoring it would do.
        let doctor = try bed.hush(alice, ["doctor"])
        #expect(doctor.status == 18 && doctor.stdout.contains("replaced: another home registered this identity"), "\(doctor)")
        #expect(try bed.hush(restoredAlice, ["doctor"]).status == 0)
        let oldBackup = try bed.hush(alice, ["backup", "create", "--to", bed.root + "/old-home-backup", "--json"])
        #expect(oldBackup.status == 0 && (try? oldBackup.json()["madeInReplacedHome"] as? String) != nil, "\(oldBackup)")
        #expect(oldBackup.stderr.contains("restoring it would register the identity again and cut off that newer home"), "\(oldBackup)")
        // Restored, that archive (younger than the home that replaced it) does not cut the newer home off unless asked.
        let oldArchive = try #require(try oldBackup.json()["path"] as? String)
        let (staleHome, stale) = try Self.restore(bed, alice, oldArchive, key: key, as: "stale")
        #expect(stale.status == 27 && stale.stderr.contains("was made in a home it had replaced"), "\(stale)")
        #expect(try bed.succeed(staleHome, ["whoami", "--json"]).json()["restoredNotRegistered"] as? Bool == true)
        let newerSync = try bed.hush(restoredAlice, ["sync"])
        #expect(newerSync.status == 0, "the newer home is still the relay's: \(newerSync)")
        for arguments in [["retry"], ["backup", "sessions"]] {
            let refused = try bed.hush(alice, arguments)
            #expect(refused.status == 27, "\(arguments): \(refused)")
        }
        // Its history still reads.
        #expect(try bed.history(alice, with: "bob").count("hi") == 1)

        // The restored home gets everything, and both sides talk with nothing set aside.
        try bed.send(restoredAlice, to: "bob", "from the new home")
        try bed.send(bob, to: "alice", "welcome back")
        var quarantined = 0
        for _ in 0..<3 {
            quarantined += try bed.sync(bob)["quarantined"] as? Int ?? 0
            quarantined += try bed.sync(restoredAlice)["quarantined"] as? Int ?? 0
        }
        #expect(quarantined == 0)
        let aliceSees = try bed.history(restoredAlice, with: "bob")
        #expect(aliceSees.count("while you moved") == 1, "\(aliceSees)")
        #expect(aliceSees.count("welcome back") == 1, "\(aliceSees)")
        let bobSees = try bed.history(bob, with: "alice")
        #expect(bobSees.count("from the new home") == 1, "\(bobSees)")
        #expect(bobSees.count("from the old home") == 0, "\(bobSees)")
        // Nothing is left to trade: bob's sync finds no decryption errors to answer.
        let last = try bed.sync(bob)
        #expect(last["resendRequested"] as? Int == 0, "\(last)")
    }

    /// Two restores in a row (a walkthrough's reproduction): bob's message,
    /// sealed on the session the archive had, is asked for by the first
    /// restored home and resent on its new session; before that home reads
    /// the resend, a second home is restored, which cannot open it and asks
    /// again. One resend per message in all left it unreadable for good
    /// ("sent (resent)" on bob's side); one per session of the peer
    /// (docs/PROTOCOL.md §10.1) gives the second home its own.
    @Test func aMessageAskedForAgainByASecondRestoredHomeIsResentOnItsSession() throws {
        let (bed, alice, bob, key, archive) = try Self.acquaintedWithBackup("restored-twice")
        try bed.send(bob, to: "alice", "sealed on the archived session")
        func restoredHome(_ number: Int) throws -> User {
            let (user, restored) = try Self.restore(bed, alice, archive, key: key, as: String(number), number > 1 ? ["--replace-newer-home"] : [])
            #expect(restored.status == 0, "\(restored)")
            return user
        }

        let first = try restoredHome(1)
        // The same archive again, while the first restored home holds the account: refused unless asked
        // (that home is newer than the archive; what it received since is in no archive), and not registered.
        let (refusedHome, refused) = try Self.restore(bed, alice, archive, key: key, as: "refused")
        #expect(refused.status == 27 && refused.stderr.contains("is older than that home")
                && refused.stderr.contains("`hush backup sessions --replace-newer-home`"), "\(refused)")
        #expect(try bed.succeed(refusedHome, ["whoami", "--json"]).json()["restoredNotRegistered"] as? Bool == true)
        #expect(try bed.hush(refusedHome, ["backup", "sessions"]).status == 27, "still refused without the flag")
        let firstAsked = try bed.sync(first)          // cannot open it: asks bob on its new session
        #expect(firstAsked["resendRequested"] as? Int == 1, "\(firstAsked)")
        try bed.sync(bob)                             // resends it on that session
        let second = try restoredHome(2)
        // The first home never read the resend; the second cannot open it (it went out on the first's session).
        let secondAsked = try bed.sync(second)
        #expect(secondAsked["resendRequested"] as? Int ?? 0 >= 1, "the resend, and whatever else bob sealed on that session: \(secondAsked)")
        try bed.sync(bob)
        try bed.sync(second)
        let aliceSees = try bed.history(second, with: "bob")
        #expect(aliceSees.count("sealed on the archived session") == 1, "\(aliceSees)")
        let bobSees = try bed.history(bob, with: "alice")
        #expect(bobSees.count("sealed on the archived session") == 1, "one message in bob's history, however often resent: \(bobSees)")

        // And the two talk on with nothing set aside.
        try bed.send(bob, to: "alice", "and after")
        try bed.send(second, to: "bob", "back again")
        #expect(try bed.sync(second)["quarantined"] as? Int == 0)
        #expect(try bed.history(second, with: "bob").count("and after") == 1)
        let last = try bed.sync(bob)
        #expect(last["resendRequested"] as? Int == 0 && last["quarantined"] as? Int == 0, "\(last)")
        #expect(try bed.history(bob, with: "alice").count("back again") == 1)
    }

    /// The same in a group: bob's group message from before both restores
    /// reaches the second restored home, resent to it alone on its session.
    @Test func aGroupMessageAskedForAgainByASecondRestoredHomeIsResentToIt() throws {
        let bed = try Testbed("restored-twice-group")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.succeed(alice, ["group", "create", "hikers", "bob"])
        for user in [bob, alice, bob] { try bed.sync(user) }
        try bed.send(alice, to: "hikers", "summit at noon?")
        try bed.sync(bob)
        let key = try BackupTests.recoveryKey(bed, alice)
        let archive = try BackupTests.backup(bed, alice)
        try FileManager.default.removeItem(atPath: alice.home)
        try bed.send(bob, to: "hikers", "while you were away")
        func restoredHome(_ number: Int) throws -> User {
            let (user, restored) = try Self.restore(bed, alice, archive, key: key, as: String(number), number > 1 ? ["--replace-newer-home"] : [])
            #expect(restored.status == 0, "\(restored)")
            return user
        }

        let first = try restoredHome(1)
        for user in [first, bob] { try bed.sync(user) }     // asks; bob resends it to the first home, which never reads it
        let second = try restoredHome(2)
        for user in [second, bob, second, bob, second] { try bed.sync(user) }
        let aliceSees = try bed.history(second, with: "hikers")
        #expect(aliceSees.count("while you were away") == 1, "\(aliceSees)")
        try bed.send(bob, to: "hikers", "welcome back")
        try bed.send(second, to: "hikers", "I am back")
        try bed.sync(second)
        try bed.sync(bob)
        #expect(try bed.history(second, with: "hikers").count("welcome back") == 1)
        #expect(try bed.history(bob, with: "hikers").count("I am back") == 1)
    }

    /// A restore made while the relay is down cannot register: it says that
    /// the old home still has the mailbox until `hush backup sessions`
    /// succeeds, a send there is refused before anything is sealed (exit 22,
    /// what to run: it once said "no session", with advice about removing
    /// the contact), and once it registers the old home is cut off.
    @Test func aRestoreWhileTheRelayIsDownSaysWhatStillHoldsTheMailbox() throws {
        let (bed, alice, bob, key, archive) = try Self.acquaintedWithBackup("restored-offline")
        _ = bed.relay.stop()
        let (restoredAlice, restored) = try Self.restore(bed, alice, archive, key: key, as: "new")
        #expect(restored.status == 22, "\(restored)")
        #expect(restored.stderr.contains("`hush backup sessions`") && restored.stderr.contains("if that one still runs, stop it first"),
                "\(restored)")
        let send = try bed.hush(restoredAlice, ["send", "bob", "too early"])
        #expect(send.status == 22, "\(send)")
        #expect(send.stderr.contains("has not registered with the relay yet") && send.stderr.contains("`hush backup sessions`"), "\(send)")
        #expect(!send.stderr.contains("removing the contact"), "\(send)")
        #expect(try bed.history(restoredAlice, with: "bob").count("too early") == 0, "refused before sealing")
        let hello = try #require(try bed.history(restoredAlice, with: "bob").first { $0.body == "hello" }?.raw["id"] as? Int)
        for arguments in [["react", "bob", String(hello), "👍"], ["edit", "bob", String(hello), "changed"], ["group", "create", "hikers", "bob"],
                          ["delete", "bob", String(hello), "--for-everyone"]] {
            let refused = try bed.hush(restoredAlice, arguments)
            #expect(refused.status == 22 && refused.stderr.contains("has not registered with the relay yet"), "\(arguments): \(refused)")
        }
        let outbox = try bed.succeed(restoredAlice, ["outbox", "--json"]).json()["outbox"] as? [Any]
        #expect(outbox?.isEmpty == true, "nothing queued: \(String(describing: outbox))")
        #expect(try bed.succeed(restoredAlice, ["whoami", "--json"]).json()["restoredNotRegistered"] as? Bool == true)
        let doctor = try bed.hush(restoredAlice, ["doctor", "--json"])
        #expect(doctor.status == 18 && (try? doctor.json()["healthy"] as? Bool) == false, "\(doctor)")

        try bed.relay.start()
        let sessions = try bed.hush(restoredAlice, ["backup", "sessions", "--json"])
        #expect(sessions.status == 0 && (try? sessions.json()["sessionsStarted"] as? Int) == 1, "\(sessions)")
        #expect(try bed.hush(alice, ["sync"]).status == 27, "the old home is cut off once the restored one registered")
        try bed.send(restoredAlice, to: "bob", "registered now")
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").count("registered now") == 1)
    }

    /// A daemon whose home was replaced stops its live connection; a
    /// listener started beside it afterwards is told so at once (exit 27),
    /// where it once waited in silence: the event had gone out before it
    /// subscribed.
    @Test func aListenerStartedBesideTheDaemonOfAReplacedHomeIsToldAtOnce() throws {
        let (bed, alice, _, key, archive) = try Self.acquaintedWithBackup("replaced-daemon")
        let daemon = try DaemonTests.startDaemon(bed, alice)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        let first = try bed.spawn(alice, ["listen", "--timeout", "60"])
        Thread.sleep(forTimeInterval: 1)
        #expect(try Self.restore(bed, alice, archive, key: key, as: "new").result.status == 0)
        let told = first.finish(timeout: 20)
        #expect(told.status == 27, "\(told)")

        let late = try bed.hush(alice, ["listen", "--timeout", "15"], environment: DaemonTests.noPassphrase)
        #expect(late.status == 27, "\(late)")
        #expect(late.stderr.contains("another home registered this account"), "\(late)")
    }
}
