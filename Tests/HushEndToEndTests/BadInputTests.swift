import Foundation
import Testing

/// Mistakes a user makes: each ends with a non-zero exit code of its own and
/// one clear line on stderr, never a crash and never a secret in the output.
@Suite struct BadInputTests {
    @Test func badInputExitsNonZeroWithAClearMessage() throws {
        let bed = try Testbed("badinput")
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)

        func expectFailure(_ user: User?, _ arguments: [String], status: Int32, saying phrase: String,
                           stdin: String? = nil, environment: [String: String?] = [:],
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
            let result = try bed.hush(user, arguments, stdin: stdin, environment: environment)
            #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
            #expect(!result.crashed, "\(result)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(phrase), "\(result)", sourceLocation: sourceLocation)
            #expect(result.stderr.split(separator: "\n").count <= 3, "one clear message, not a dump: \(result)", sourceLocation: sourceLocation)
            #expect(!result.stderr.contains(HushEnvironment.passphrase) && !result.stdout.contains(HushEnvironment.passphrase),
                    sourceLocation: sourceLocation)
        }

        // No identity yet (10).
        let nobody = User(name: "nobody", home: bed.root + "/nobody")
        try expectFailure(nobody, ["whoami"], status: 10, saying: "hush init")
        try expectFailure(nobody, ["send", "bob", "hi"], status: 10, saying: "hush init")
        #expect(!FileManager.default.fileExists(atPath: nobody.home + "/keystore"))

        // Wrong passphrase (11); the wrong one is not echoed either.
        try expectFailure(alice, ["chats"], status: 11, saying: "wrong passphrase", environment: ["HUSH_PASSPHRASE": "not the passphrase"])
        let wrong = try bed.hush(alice, ["send", "bob", "hi"], environment: ["HUSH_PASSPHRASE": "not the passphrase"])
        #expect(wrong.status == 11 && !wrong.stderr.contains("not the passphrase"))

        // Unknown contact (21).
        try expectFailure(alice, ["send", "carol", "hi"], status: 21, saying: "no contact named 'carol'")
        try expectFailure(alice, ["history", "carol"], status: 21, saying: "hush contact add carol")
        try expectFailure(alice, ["verify", "carol"], status: 21, saying: "no contact named 'carol'")
        try expectFailure(alice, ["contact", "remove", "carol"], status: 21, saying: "no contact named 'carol'")

        // Malformed addresses (21), including a real one with a typo.
        try expectFailure(alice, ["contact", "add", "carol", "not-an-address"], status: 21, saying: "invalid address")
        var typo = Array(bob.address)
        typo[typo.count - 3] = typo[typo.count - 3] == "q" ? "p" : "q"
        try expectFailure(alice, ["contact", "add", "carol", String(typo)], status: 21, saying: "invalid address")
        try expectFailure(alice, ["contact", "add", "me", alice.address], status: 21, saying: "your own address")
        // The same person under a second name.
        try expectFailure(alice, ["contact", "add", "bobby", bob.address], status: 21, saying: "already your contact 'bob'")

        // An empty message, as an argument or on standard input: a usage error (64).
        try expectFailure(alice, ["send", "bob", ""], status: 64, saying: "empty")
        try expectFailure(alice, ["send", "bob"], status: 64, saying: "empty", stdin: "\n")
        try expectFailure(alice, ["send", "bob", "x", "--no-such-flag"], status: 64, saying: "--no-such-flag")
        // Too few digits is a usage error that asks for all of them; a wrong number is a mismatch. Neither verifies.
        try expectFailure(alice, ["verify", "bob", "--compare", "12345"], status: 64, saying: "60 digits")
        // Short hex is no scanned code either: not the alarm of a mismatch (exit 23, "someone may be in the middle").
        try expectFailure(alice, ["verify", "bob", "--compare", "abc"], status: 64, saying: "neither 60 digits nor a scanned safety number code")
        try expectFailure(alice, ["verify", "bob", "--compare", String(repeating: "12345 ", count: 12)], status: 23, saying: "do NOT match")

        // None of that sent or stored anything.
        #expect(try bed.history(alice, with: "bob").isEmpty)
        #expect(try bed.outbox(alice).isEmpty)
        #expect(try bed.storedEnvelopes(for: bob) == 0)
        // And a good send still works afterwards.
        #expect(try bed.send(alice, to: "bob", "fine after all that")["status"] as? String == "sent")
    }
}
