import Foundation
import Testing

/// One home per key (docs/PROTOCOL.md §19.4): a backup restored on a new
/// machine while the old home still exists. Before, the old home went on
/// fetching from the shared mailbox (taking what was sealed for the restored
/// home's sessions) and sending on sessions its contact had left: its
/// messages showed as sent and were never read, and the two sides traded
/// decryption errors at every sync for ever.
@Suite struct ReplacedHomeTests {
    @Test func aHomeRestoredElsewhereStopsTheOldOneAndNothingIsLost() throws {
        let bed = try Testbed("replaced")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let key = try BackupTests.recoveryKey(bed, alice)
        let archive = try BackupTests.backup(bed, alice)
        // The old home listens live while the restore happens elsewhere.
        let listener = try bed.spawn(alice, ["listen", "--json", "--timeout", "60"])
        Thread.sleep(forTimeInterval: 1)

        let restoredAlice = User(name: "alice", home: bed.root + "/new-machine/alice", address: alice.address, identityKey: alice.identityKey)
        try FileManager.default.createDirectory(atPath: bed.root + "/new-machine", withIntermediateDirectories: true)
        let restored = try BackupTests.restore(bed, archive, home: restoredAlice.home, key: key)
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
}
