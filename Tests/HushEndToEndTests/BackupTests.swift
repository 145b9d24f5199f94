import Foundation
import Testing

/// Issue 32 from the command line: `hush backup key|create|verify|restore`,
/// each a separate process against a real relay.
@Suite struct BackupTests {
    static func recoveryKey(_ bed: Testbed, _ user: User) throws -> String {
        let object = try bed.succeed(user, ["backup", "key", "--json"]).json()
        return try #require(object["recoveryKey"] as? String)
    }

    static func backup(_ bed: Testbed, _ user: User) throws -> String {
        let object = try bed.succeed(user, ["backup", "create", "--to", bed.root + "/backups-" + user.name, "--json"]).json()
        return try #require(object["path"] as? String)
    }

    /// `hush backup restore ARCHIVE --home HOME --json` (and `options`) with the key in HUSH_RECOVERY_KEY.
    static func restore(_ bed: Testbed, _ archive: String, home: String, key: String, _ options: [String] = []) throws -> CommandResult {
        try bed.hush(nil, ["backup", "restore", archive, "--home", home, "--json"] + options, environment: ["HUSH_RECOVERY_KEY": key])
    }

    /// Alice and Bob talk and swap a file; Alice backs up, loses her home,
    /// restores it elsewhere with the recovery key alone: the same address,
    /// her history and the file byte for byte, and then both talk again,
    /// including what Bob wrote while she was gone.
    @Test func aRestoredAccountHasItsHistoryAndFilesAndTalksAgain() throws {
        let bed = try Testbed("backup")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let file = (0..<(3 * 65_536 + 1_000)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        let filePath = bed.root + "/photo.bin"
        try Data(file).write(to: URL(fileURLWithPath: filePath))
        try bed.succeed(bob, ["send", "alice", "--file", filePath, "--json"])
        try bed.sync(alice)
        let listed = try #require(try bed.succeed(alice, ["attachments", "--json"]).json()["attachments"] as? [[String: Any]])
        let id = try #require(listed.first?["id"] as? Int)
        try bed.succeed(alice, ["fetch", String(id), "--out", bed.root + "/before.bin"])
        try bed.send(alice, to: "bob", "thanks for the photo")
        // A file Alice sends: her own copy goes into the archive too.
        let reply = Array("a drawing in return".utf8) + (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 17) }
        try Data(reply).write(to: URL(fileURLWithPath: bed.root + "/drawing.bin"))
        let sentFile = try bed.succeed(alice, ["send", "bob", "--file", bed.root + "/drawing.bin", "--json"]).json()
        let sentID = try #require((sentFile["attachment"] as? [String: Any])?["id"] as? Int, "\(sentFile)")
        try bed.sync(bob)

        let key = try Self.recoveryKey(bed, alice)
        let archive = try Self.backup(bed, alice)
        let verified = try bed.hush(nil, ["backup", "verify", archive, "--json"], environment: ["HUSH_RECOVERY_KEY": key])
        #expect(verified.status == 0, "\(verified)")
        let summary = try verified.json()
        #expect(summary["address"] as? String == alice.address)
        #expect(summary["files"] as? Int == 2, "the received file and the sent one: \(summary)")
        let historyBefore = try bed.history(alice, with: "bob")
        #expect(summary["messages"] as? Int == historyBefore.count, "\(summary)")

        // The disk is lost; Bob writes meanwhile, on the session Alice no longer has.
        try FileManager.default.removeItem(atPath: alice.home)
        try bed.send(bob, to: "alice", "while you were away")

        var restoredAlice = alice
        restoredAlice = User(name: "alice", home: bed.root + "/new-machine/alice", address: alice.address, identityKey: alice.identityKey)
        try FileManager.default.createDirectory(atPath: bed.root + "/new-machine", withIntermediateDirectories: true)
        // One key derivation, the new keystore's: the restored account is opened with the keys the
        // restore sealed, not unlocked again (a second derivation's 64 MiB set the restore's peak memory).
        let restored = try bed.hush(nil, ["backup", "restore", archive, "--home", restoredAlice.home, "--json"],
                                    environment: ["HUSH_RECOVERY_KEY": key, "HUSH_TIMINGS": "1"])
        #expect(restored.status == 0, "\(restored)")
        #expect(restored.stderr.contains(", 1 key derivation(s)"), "\(restored)")
        #expect(try restored.json()["sessionsStarted"] as? Int == 1, "\(restored)")
        let whoami = try bed.succeed(restoredAlice, ["whoami", "--json"]).json()
        #expect(whoami["address"] as? String == alice.address, "\(whoami)")
        #expect(try bed.history(restoredAlice, with: "bob").map(\.description) == historyBefore.map(\.description))
        try bed.succeed(restoredAlice, ["fetch", String(id), "--out", bed.root + "/after.bin"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: bed.root + "/after.bin")) == Data(file))
        let restoredSent = try #require(try bed.succeed(restoredAlice, ["attachments", "--json"]).json()["attachments"] as? [[String: Any]])
            .first { $0["id"] as? Int == sentID }
        #expect(restoredSent?["storedHere"] as? Bool == true, "the sent file came back with the archive: \(String(describing: restoredSent))")
        try bed.succeed(restoredAlice, ["fetch", String(sentID), "--out", bed.root + "/drawing-after.bin"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: bed.root + "/drawing-after.bin")) == Data(reply))
        #expect(try bed.succeed(restoredAlice, ["history", "bob"]).stdout.contains("restored from a backup of"))

        // Both ways again, and Bob's message from the gap arrives through the resend.
        try bed.send(restoredAlice, to: "bob", "I am back")
        try bed.send(bob, to: "alice", "welcome back")
        for _ in 0..<4 {
            try bed.sync(bob)
            try bed.sync(restoredAlice)
        }
        let aliceSees = try bed.history(restoredAlice, with: "bob")
        #expect(aliceSees.count("while you were away") == 1, "\(aliceSees)")
        #expect(aliceSees.count("welcome back") == 1, "\(aliceSees)")
        let bobSees = try bed.history(bob, with: "alice")
        #expect(bobSees.count("I am back") == 1, "\(bobSees)")
        #expect(bobSees.count("thanks for the photo") == 1, "\(bobSees)")
    }

    /// Alice, Bob and Carol talk in a group; Alice backs up, the group goes
    /// on, her disk is lost and she restores it elsewhere. With no change to
    /// the group, she reads what Bob and Carol write and they read her: the
    /// restored account distributes a new sender chain and the members give
    /// it theirs again on its new sessions (docs/PROTOCOL.md §19.4). Bob's
    /// group message from while she was gone, sealed at a point of his chain
    /// she no longer holds, reaches her through the decryption-error resend.
    /// (Before, the restored Alice made a chain nobody received and waited for
    /// the members' chains for ever: neither side read the other until the
    /// group's next state change.)
    @Test func aRestoredMemberTalksInItsGroupsWithoutAStateChange() throws {
        let bed = try Testbed("backup-groups")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }
        try bed.succeed(alice, ["group", "create", "hikers", "bob", "carol"])
        for user in [bob, carol, bob, carol] { try bed.sync(user) }
        try bed.send(alice, to: "hikers", "summit at noon?")
        try bed.send(bob, to: "hikers", "yes")
        try bed.send(carol, to: "hikers", "bringing tea")
        for user in [alice, bob, carol, alice] { try bed.sync(user) }

        let key = try Self.recoveryKey(bed, alice)
        let archive = try Self.backup(bed, alice)
        let historyBefore = try bed.history(alice, with: "hikers")
        #expect(Set(historyBefore.bodies) == ["summit at noon?", "yes", "bringing tea"], "\(historyBefore)")
        // The group goes on after the backup, Alice's old home with it.
        try bed.send(carol, to: "hikers", "after the backup")
        try bed.send(alice, to: "hikers", "from the old machine")
        for user in [alice, bob, carol] { try bed.sync(user) }

        // The disk is lost; Bob writes to the group meanwhile, reacts to
        // Alice's question and corrects his answer.
        try FileManager.default.removeItem(atPath: alice.home)
        try bed.send(bob, to: "hikers", "while you were away")
        let bobsView = try bed.history(bob, with: "hikers")
        let question = try #require(bobsView.first { $0.body == "summit at noon?" }?.raw["id"] as? Int)
        let answer = try #require(bobsView.first { $0.body == "yes" }?.raw["id"] as? Int)
        try bed.succeed(bob, ["react", "hikers", String(question), "👍"])
        try bed.succeed(bob, ["edit", "hikers", String(answer), "yes, at noon"])

        let restoredAlice = User(name: "alice", home: bed.root + "/new-machine/alice", address: alice.address, identityKey: alice.identityKey)
        try FileManager.default.createDirectory(atPath: bed.root + "/new-machine", withIntermediateDirectories: true)
        let restored = try Self.restore(bed, archive, home: restoredAlice.home, key: key)
        #expect(restored.status == 0, "\(restored)")
        #expect(try bed.history(restoredAlice, with: "hikers").map(\.description) == historyBefore.map(\.description))
        for user in [restoredAlice, bob, carol, restoredAlice] { try bed.sync(user) }

        // No state change: Bob and Carol write, Alice reads; Alice writes, both read.
        try bed.send(bob, to: "hikers", "welcome back")
        try bed.send(carol, to: "hikers", "tea is ready")
        try bed.sync(restoredAlice)
        let aliceReads = try bed.history(restoredAlice, with: "hikers")
        #expect(aliceReads.count("welcome back") == 1 && aliceReads.count("tea is ready") == 1, "\(aliceReads)")
        try bed.send(restoredAlice, to: "hikers", "I am back")
        for user in [bob, carol] {
            try bed.sync(user)
            #expect(try bed.history(user, with: "hikers").count("I am back") == 1, "\(user.name)")
        }

        // Bob's message, reaction and edit from the gap: Alice asks, Bob
        // resends each to her alone (the edit, a content history does not
        // show, as well as the message).
        for user in [restoredAlice, bob, restoredAlice] { try bed.sync(user) }
        let aliceSees = try bed.history(restoredAlice, with: "hikers")
        #expect(aliceSees.count("while you were away") == 1, "\(aliceSees)")
        #expect(aliceSees.count("yes, at noon") == 1 && aliceSees.count("yes") == 0, "Bob's edit from the gap: \(aliceSees)")
        let reactions = aliceSees.first { $0.body == "summit at noon?" }?.raw["reactions"] as? [[String: Any]] ?? []
        #expect(reactions.contains { $0["emoji"] as? String == "👍" && $0["address"] as? String == bob.address },
                "Bob's reaction from the gap: \(reactions)")
        let carolSees = try bed.history(carol, with: "hikers")
        #expect(carolSees.count("while you were away") == 1 && carolSees.count("from the old machine") == 1, "\(carolSees)")
        let bobSees = try bed.history(bob, with: "hikers")
        #expect(bobSees.count("I am back") == 1 && bobSees.count("from the old machine") == 1, "\(bobSees)")
    }

    /// Without a terminal, a recovery key given neither by file nor by
    /// environment is asked for by its own names: the message once sent the
    /// user to `--passphrase-file` and `HUSH_PASSPHRASE`, which a restore
    /// does not read for the key. `setsid` leaves the command without a
    /// controlling terminal even when the tests run in one.
    @Test func aRecoveryKeyThatCannotBeAskedForIsNamedAsSuch() throws {
        let bed = try Testbed("backup-no-terminal")
        // An archive is there (its path and header are checked before the key is asked for).
        let archive = try Self.backup(bed, try bed.newUser("alice"))
        let result = try ChildProcess([HushBinary.path, "backup", "verify", archive],
                                      environment: bed.environment(for: nil), executable: "/usr/bin/setsid").finish(timeout: 30)
        #expect(result.status == 16, "\(result)")
        #expect(result.stderr.contains("no recovery key: no terminal to ask on: use --recovery-key-file FILE or HUSH_RECOVERY_KEY"), "\(result)")
        let empty = try bed.hush(nil, ["backup", "verify", archive], environment: ["HUSH_RECOVERY_KEY": ""])
        #expect(empty.status == 16 && empty.stderr.contains("no recovery key: HUSH_RECOVERY_KEY is empty"), "\(empty)")
        // A file that is no archive is said to be none before any key is asked for (it asked for the key first).
        FileManager.default.createFile(atPath: bed.root + "/notes.txt", contents: Data("not an archive".utf8))
        let notes = try bed.hush(nil, ["backup", "verify", bed.root + "/notes.txt"], environment: ["HUSH_RECOVERY_KEY": ""])
        #expect(notes.status == 1 && notes.stderr.contains("this is not a Hush backup archive"), "\(notes)")
    }

    /// A path that names no archive is said before the recovery key is asked
    /// for, and a backup folder that cannot be one is said in words, not as
    /// a Foundation error (a walkthrough: "Error Domain=NSCocoaErrorDomain
    /// Code=4", and exit 21 for a missing archive, the code for contacts).
    @Test func pathsThatNameNoArchiveOrNoFolderAreSaidPlainly() throws {
        let bed = try Testbed("backup-paths")
        let alice = try bed.newUser("alice")
        let missing = try ChildProcess([HushBinary.path, "backup", "verify", bed.root + "/nowhere.hushbackup"],
                                       environment: bed.environment(for: nil), executable: "/usr/bin/setsid").finish(timeout: 30)
        #expect(missing.status == 1 && missing.stderr.contains("there is no file at \(bed.root)/nowhere.hushbackup"), "\(missing)")
        #expect(!missing.stderr.contains("recovery key"), "\(missing)")
        let folder = try bed.hush(nil, ["backup", "restore", bed.root, "--home", bed.root + "/new-home"], environment: ["HUSH_RECOVERY_KEY": "x"])
        #expect(folder.status == 1 && folder.stderr.contains("is a folder"), "\(folder)")
        #expect(!FileManager.default.fileExists(atPath: bed.root + "/new-home"))

        let empty = try bed.hush(alice, ["backup", "create", "--to", ""])
        #expect(empty.status == 64 && empty.stderr.contains("--to names no folder"), "\(empty)")
        FileManager.default.createFile(atPath: bed.root + "/a-file", contents: Data("x".utf8))
        let file = try bed.hush(alice, ["backup", "create", "--to", bed.root + "/a-file"])
        #expect(file.status != 0 && file.stderr.contains("is a file, not a folder"), "\(file)")
        for result in [empty, file] { #expect(!result.stderr.contains("NSCocoaErrorDomain"), "\(result)") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: bed.root + "/a-file")) == Data("x".utf8))
    }

    /// Every bad input is refused with a clear error and a non-zero exit,
    /// and writes nothing into the home it names.
    @Test func badArchivesKeysAndHomesAreRefusedAndWriteNothing() throws {
        let bed = try Testbed("backup-bad")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let key = try Self.recoveryKey(bed, alice)
        let archive = try Self.backup(bed, alice)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: archive)))
        var count = 0
        func refused(_ archive: String, key: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            count += 1
            let home = bed.root + "/restore-\(count)"
            let result = try Self.restore(bed, archive, home: home, key: key)
            #expect(result.status != 0 && !result.crashed, "\(result)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(expected), "\(result)", sourceLocation: sourceLocation)
            #expect(!FileManager.default.fileExists(atPath: home), "nothing is written", sourceLocation: sourceLocation)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: bed.root).filter { $0.contains(".restoring") }
            #expect(leftovers.isEmpty, "\(leftovers)", sourceLocation: sourceLocation)
        }
        func variant(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = bed.root + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }

        // Another account's key (valid, but not this archive's), and a typo in the right one.
        try refused(archive, key: try Self.recoveryKey(bed, bob), "does not open this backup archive, made by \(alice.address)")
        var typo = Array(key)
        typo[0] = typo[0] == "A" ? "B" : "A"
        try refused(archive, key: String(typo), "typo")
        // Cut short, a byte changed in a record, a byte changed in the header.
        try refused(try variant("cut", Array(bytes.dropLast(9))), key: key, "damaged")
        var changed = bytes
        changed[bytes.count / 2] ^= 0x01
        try refused(try variant("changed", changed), key: key, "damaged")
        var header = bytes
        header[20] ^= 0x01
        try refused(try variant("header", header), key: key, "does not open this backup archive")
        // Two records swapped (format version 2: each record is its sealed length, its clear length, the chunk, the clear bytes).
        #expect(bytes[8..<10] == [0, 2])
        var records: [[UInt8]] = []
        var offset = 138
        while offset < bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let clear = bytes[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
            records.append(Array(bytes[offset..<offset + 8 + length + clear]))
            offset += 8 + length + clear
        }
        #expect(records.count > 4)
        records.swapAt(2, 3)
        try refused(try variant("reordered", Array(bytes[0..<138]) + records.flatMap { $0 }), key: key, "damaged")

        // A home that holds an account already: refused, and left as it was.
        let keystore = try Data(contentsOf: URL(fileURLWithPath: alice.home + "/keystore"))
        let result = try Self.restore(bed, archive, home: alice.home, key: key)
        #expect(result.status != 0 && result.stderr.contains("not empty"), "\(result)")
        // What helps (another --home), not `hush init --force`, which destroyed an identity and did not help.
        #expect(result.stderr.contains("another --home") && !result.stderr.contains("init --force"), "\(result)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: alice.home + "/keystore")) == keystore)
        // The untouched archive still restores.
        #expect(try Self.restore(bed, archive, home: bed.root + "/good", key: key).status == 0)
    }
}
