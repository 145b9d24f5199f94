import Foundation
import Testing

/// `hush profile`: the chosen name travels sealed and shows beside the
/// request, never instead of the address, and never as terminal controls.
@Suite struct ProfileNameEndToEndTests {
    @Test func aRequestShowsTheNameItsSenderChose() throws {
        let bed = try Testbed("profile")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        #expect(try bed.succeed(alice, ["profile", "--json"]).json()["name"] as? String == "alice", "hush init --name sets it")
        let set = try bed.succeed(alice, ["profile", "--name", "Alice \u{1b}[31mLiddell", "--json"]).json()
        #expect(set["name"] as? String == "Alice \u{1b}[31mLiddell" && set["queuedFor"] as? Int == 0)
        try bed.addContact(alice, bob)
        try bed.succeed(alice, ["send", "bob", "hello"])
        try bed.sync(bob)

        let requests = try #require(try bed.succeed(bob, ["requests", "--json"]).json()["requests"] as? [[String: Any]])
        #expect(requests.count == 1 && requests.first?["profileName"] as? String == "Alice \u{1b}[31mLiddell", "\(requests)")
        #expect((requests.first?["name"] as? String)?.hasPrefix("unknown-") == true)
        let shown = try bed.succeed(bob, ["requests"]).stdout
        #expect(shown.contains("calls themselves \"Alice") && shown.contains(alice.address), Comment(rawValue: shown))
        #expect(!shown.contains("\u{1b}"), "a peer's name never reaches the terminal as an escape sequence: \(shown)")

        // Until accepted, `contact list` says it is a request (it read as any contact).
        let name = try #require(requests.first?["name"] as? String)
        let listed = try #require(try bed.succeed(bob, ["contact", "list", "--json"]).json()["contacts"] as? [[String: Any]])
        #expect(listed.first { $0["name"] as? String == name }?["standing"] as? String == "requested", "\(listed)")
        #expect(try bed.succeed(bob, ["contact", "list"]).stdout.contains("(message request, not accepted"))

        // Accepted, bob answers; a later change of name reaches him with no message of its own.
        try bed.succeed(bob, ["requests", "accept", name, "--name", "alice"])
        try bed.succeed(bob, ["send", "alice", "hi"])
        try bed.sync(alice)
        #expect(try bed.succeed(alice, ["profile", "--name", "Alice L.", "--json"]).json()["queuedFor"] as? Int == 1)
        try bed.sync(bob)
        let contacts = try #require(try bed.succeed(bob, ["contact", "list", "--json"]).json()["contacts"] as? [[String: Any]])
        #expect(contacts.first { $0["name"] as? String == "alice" }?["profileName"] as? String == "Alice L.", "\(contacts)")
        #expect(contacts.first { $0["name"] as? String == "alice" }?["standing"] as? String == "accepted", "\(contacts)")
        #expect(try bed.history(bob, with: "alice").incoming.bodies == ["hello"])

        let refused = try bed.hush(alice, ["profile", "--name", String(repeating: "x", count: 65)])
        #expect(refused.status == 64 && refused.stderr.contains("1 to 64 bytes"), "\(refused)")
    }
}
