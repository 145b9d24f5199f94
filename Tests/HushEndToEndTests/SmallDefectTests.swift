import Foundation
import Testing

/// Small defects that misled (issue 29, item 10), with real `hush`
/// processes and a real relay.
@Suite struct SmallDefectTests {
    /// The admin's own copy takes the new name, as the members' do; it said
    /// "Renamed hikers to hikers." and kept the old one.
    @Test func anAdminsRenameRenamesTheirOwnCopy() throws {
        let bed = try Testbed("rename")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.succeed(alice, ["group", "create", "hikers", "bob"])
        let renamed = try bed.succeed(alice, ["group", "rename", "hikers", "trail"])
        #expect(renamed.stdout.hasPrefix("Renamed hikers to trail."), "\(renamed.stdout)")
        let groups = try #require(try bed.succeed(alice, ["group", "list", "--json"]).json()["groups"] as? [[String: Any]])
        #expect(groups.map { $0["name"] as? String } == ["trail"], "\(groups)")
        try bed.send(alice, to: "trail", "by the new name")
        try bed.sync(bob)
        try bed.sync(bob)
        let bobs = try #require(try bed.succeed(bob, ["group", "list", "--json"]).json()["groups"] as? [[String: Any]])
        #expect(bobs.map { $0["name"] as? String } == ["trail"], "\(bobs)")
    }

    /// A member who left (or was removed) is still named on their old lines
    /// in `hush chat`, never labelled with the group's name.
    @Test func aFormerMembersLinesNameThemInChat() throws {
        let bed = try Testbed.forGroups("former-member")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        try bed.meet(alice, bob)
        try bed.meet(alice, carol)
        try bed.succeed(alice, ["group", "create", "hikers", "bob", "carol"])
        for user in [bob, carol, bob, carol] { try bed.sync(user) }
        try bed.send(carol, to: "hikers", "carol was here")
        try bed.sync(alice)
        try bed.succeed(alice, ["group", "remove", "hikers", "carol"])
        let chat = try bed.hush(alice, ["chat", "hikers"], stdin: "")
        let line = try #require(chat.stdout.split(separator: "\n").first { $0.contains("carol was here") }, "\(chat)")
        #expect(line.contains("carol: carol was here"), "\(line)")
        #expect(!line.contains("hikers:"), "\(line)")
    }

    /// Ten of the sixty digits are not a mismatch (which warns of someone in
    /// the middle): the command asks for all of them, and verifies nothing.
    @Test func aShortSafetyNumberAsksForAllDigits() throws {
        let bed = try Testbed("verify-short")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let result = try bed.hush(alice, ["verify", "bob", "--compare", "12345 67890"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("60 digits") && result.stderr.contains("10 were given"), "\(result.stderr)")
        #expect(!result.stderr.contains("do NOT match") && !result.stderr.contains("middle"), "\(result.stderr)")
        let digits = try #require(try bed.succeed(alice, ["verify", "bob", "--json"]).json()["safetyNumber"] as? String)
        #expect(try bed.succeed(alice, ["verify", "bob", "--compare", digits]).stdout.contains("match"))
    }

    /// `hush retry --json` prints JSON, like every other command with --json.
    @Test func retryPrintsJSON() throws {
        let bed = try Testbed("retry-json")
        let alice = try bed.newUser("alice")
        let object = try bed.succeed(alice, ["retry", "--json"]).json()
        #expect(object["sent"] as? Int == 0 && object["failed"] as? Int == 0 && object["retrying"] as? Int == 0, "\(object)")
    }

    /// A passphrase mistyped at a terminal is asked again (three tries in
    /// all); the command then goes on. It used to end at the first typo.
    @Test func aMistypedPassphraseOnATerminalIsAskedAgain() throws {
        let bed = try Testbed("passphrase-tries")
        let alice = try bed.newUser("alice")
        var environment = bed.environment(for: alice, overrides: ["HUSH_PASSPHRASE": nil])
        environment["TERM"] = "xterm-256color"
        environment["SWIFT_BACKTRACE"] = "interactive=no"
        let child = try ChildProcess(["whoami"], environment: environment, terminal: (80, 24))
        #expect(child.wait(timeout: 20) { $0.stdout.contains("Passphrase:") }, "no prompt: \(child.stdout)")
        child.type("not the passphrase\n")
        #expect(child.wait(timeout: 30) { $0.stdout.contains("try again") }, "no second try: \(child.stdout)")
        child.type(HushEnvironment.passphrase + "\n")
        let result = child.finish(timeout: 30)
        #expect(result.status == 0 && result.stdout.contains(alice.address), "\(result)")
        #expect(!result.stdout.contains("not the passphrase"), "the passphrase was echoed")

        // Three wrong ones end it with the wrong-passphrase code.
        let thrice = try ChildProcess(["whoami"], environment: environment, terminal: (80, 24))
        for attempt in 1...3 {
            #expect(thrice.wait(timeout: 30) { $0.stdout.components(separatedBy: "Passphrase:").count > attempt }, "prompt \(attempt): \(thrice.stdout)")
            thrice.type("wrong \(attempt)\n")
        }
        #expect(thrice.finish(timeout: 30).status == 11)
    }

    /// What a walkthrough found misleading, each mended: a display name
    /// with an escape was echoed raw (to this terminal); `--limit -1` said "Missing value";
    /// `init --link` with a mistyped code asked for a passphrase and said
    /// "Asking the other device…" before it said the code was wrong; a
    /// restore into a file said an identity exists (exit 15); a plain-http
    /// relay of another machine got swift-log's server-log line.
    @Test func walkthroughLeftoversSayWhatIsWrong() throws {
        let bed = try Testbed("leftovers")
        let alice = try bed.newUser("alice")
        // Not refused (any client can send such a name: ProfileNameEndToEndTests), but never echoed as an escape.
        let escape = try bed.hush(alice, ["profile", "--name", "evil\u{1B}[31mred"])
        #expect(escape.status == 0 && escape.stdout.contains("evil") && !escape.stdout.contains("\u{1B}"), "\(escape)")
        #expect(!(try bed.succeed(alice, ["profile"]).stdout.contains("\u{1B}")))
        let limit = try bed.hush(alice, ["history", "bob", "--limit", "-1"])
        #expect(limit.status == 64 && limit.stderr.contains("--limit must be between 1 and 500, not -1"), "\(limit)")

        // No passphrase anywhere: the code is checked first, so the error is about the code.
        let link = try bed.hush(nil, ["init", "--link", "garbage", "--home", bed.root + "/linked"], environment: ["HUSH_PASSPHRASE": nil])
        #expect(link.status == 1 && link.stderr.contains("this is not a link code"), "\(link)")
        #expect(!link.stdout.contains("Asking"), "\(link)")

        let file = bed.root + "/a-file"
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let archive = try BackupTests.backup(bed, alice)
        let restore = try BackupTests.restore(bed, archive, home: file, key: try BackupTests.recoveryKey(bed, alice))
        #expect(restore.status == 1 && restore.stderr.contains("is a file, not a folder"), "\(restore)")

        // 192.0.2.1 (TEST-NET-1) is never a loopback address; what the relay answers does not matter here.
        let remote = try bed.hush(nil, ["init", "--home", bed.root + "/remote", "--name", "r", "--relay", "http://192.0.2.1:9",
                                        "--kdf-cost", "interactive"], timeout: 90)
        #expect(remote.stderr.contains("hush: warning: the relay URL is plain http:// to another machine"), "\(remote)")
        #expect(!remote.stderr.contains("warning hush.relay-client"), "\(remote)")
    }
}
