import Foundation
import Glibc
import Testing

/// `messages.db` holds every session: a missing, emptied or foreign one must
/// stop every command (nothing registered, sent or fetched, so nothing waiting
/// at the relay is set aside and acknowledged), and restoring the file must
/// deliver everything that waited.
@Suite struct MissingDatabaseTests {
    @Test func aMissingEmptyOrForeignDatabaseStopsEveryCommandAndRestoringItDeliversWhatWaited() throws {
        let bed = try Testbed("missing-db")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let waiting = ["one", "two", "three"]
        for text in waiting { try bed.send(alice, to: "bob", text) }
        #expect(try bed.storedEnvelopes(for: bob) == 3)

        let database = bob.home + "/messages.db"
        let backup = bed.root + "/bob-messages.db.backup"
        try FileManager.default.moveItem(atPath: database, toPath: backup)
        for suffix in ["-wal", "-shm"] { unlink(database + suffix) }

        func expectRefusals(_ situation: String, saying phrase: String) throws {
            let doctor = try bed.hush(bob, ["doctor"])
            #expect(doctor.status == 18 && doctor.stderr.contains(phrase) && doctor.stderr.contains("backup"), "\(situation): \(doctor)")
            for arguments in [["register"], ["sync"], ["send", "alice", "lost?"], ["history", "alice"]] {
                let result = try bed.hush(bob, arguments)
                #expect(result.status == 17 && result.stderr.contains(phrase), "\(situation), \(arguments): \(result)")
            }
            #expect(try bed.storedEnvelopes(for: bob) == 3, "\(situation): the waiting envelopes stay at the relay")
        }

        try expectRefusals("missing", saying: "is missing")
        #expect(!FileManager.default.fileExists(atPath: database), "no command created a new database")

        #expect(FileManager.default.createFile(atPath: database, contents: Data(), attributes: [.posixPermissions: 0o600]))
        try expectRefusals("empty", saying: "is empty")

        // Another identity's database: opened with the wrong key, refused the same way.
        unlink(database)
        try FileManager.default.copyItem(atPath: alice.home + "/messages.db", toPath: database)
        for arguments in [["sync"], ["register"]] {
            let result = try bed.hush(bob, arguments)
            #expect(result.status == 17 && result.stderr.contains("key is wrong"), "\(arguments): \(result)")
        }
        #expect(try bed.hush(bob, ["doctor", "--new-database"]).status == 17, "never replaces a database that exists")
        #expect(try bed.storedEnvelopes(for: bob) == 3)

        unlink(database)
        try FileManager.default.moveItem(atPath: backup, toPath: database)
        #expect(try bed.hush(bob, ["doctor"]).status == 0)
        #expect(try bed.sync(bob)["received"] as? Int == 3)
        #expect(try bed.history(bob, with: "alice").incoming.bodies == ["hello"] + waiting)
        #expect(try bed.storedEnvelopes(for: bob) == 0)
    }

    @Test func doctorCreatesAnEmptyDatabaseOnlyWhenAskedAndOnlyWhenThereIsNone() throws {
        let bed = try Testbed("new-db")
        let carol = try bed.newUser("carol")
        unlink(carol.home + "/messages.db")
        let refused = try bed.hush(carol, ["doctor"])
        #expect(refused.status == 18 && refused.stderr.contains("--new-database"), "\(refused)")
        let created = try bed.hush(carol, ["doctor", "--new-database"])
        #expect(created.status == 0 && created.stdout.contains("Created an empty messages.db"), "\(created)")
        let again = try bed.hush(carol, ["doctor", "--new-database"])
        #expect(again.status == 64 && again.stderr.contains("holds data"), "\(again)")
        // The relay's address lived in the lost database too: register again, then use it.
        try bed.succeed(carol, ["register", "--relay", bed.relay.url])
        try bed.succeed(carol, ["sync"])
    }
}
