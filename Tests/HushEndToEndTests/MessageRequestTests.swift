import Foundation
import Testing

/// A stranger's first messages are a message request (docs/PROTOCOL.md
/// §10.2): kept, but nothing goes back until the user accepts; blocking drops
/// the stranger's further messages unread.
@Suite struct MessageRequestTests {
    /// The one message request `user` has, from `hush requests --json`.
    private func onlyRequest(_ bed: Testbed, of user: User, blocked: Bool = false,
                             sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let list = try bed.succeed(user, ["requests", "list", "--json"] + (blocked ? ["--blocked"] : []), sourceLocation: sourceLocation).json()
        let requests = try #require(list[blocked ? "blocked" : "requests"] as? [[String: Any]], sourceLocation: sourceLocation)
        try #require(requests.count == 1, "\(requests)", sourceLocation: sourceLocation)
        return requests[0]
    }

    @Test func aRequestIsNeitherAnsweredNorReceiptedUntilAccepted() throws {
        let bed = try Testbed("requests")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.send(alice, to: "bob", "hi, we met at the conference")
        try bed.send(alice, to: "bob", "this is alice")

        let report = try bed.sync(bob)
        #expect(report["requests"] as? Int == 1, "\(report)")
        let request = try onlyRequest(bed, of: bob)
        let name = try #require(request["name"] as? String)
        #expect(name.hasPrefix("unknown-") && request["address"] as? String == alice.address && request["messages"] as? Int == 2, "\(request)")
        #expect(try bed.succeed(bob, ["chats"]).stdout.contains("1 message request(s)"))

        // Reading the request (which marks it read) sends nothing either.
        let history = try bed.succeed(bob, ["history", name, "--json"]).json()
        #expect((history["messages"] as? [[String: Any]])?.count == 2)
        #expect(try bed.storedEnvelopes(for: alice) == 0, "no receipt, no credential reached the relay for alice")
        #expect(try bed.outbox(bob).isEmpty)
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").outgoing.map(\.status) == ["sent", "sent"])

        // Answering before accepting is refused with what to do.
        let early = try bed.hush(bob, ["send", name, "hello?"])
        #expect(early.status == 21 && early.stderr.contains("hush requests accept \(name)"), "\(early)")

        let accepted = try bed.succeed(bob, ["requests", "accept", name, "--name", "alice", "--json"]).json()
        #expect(accepted["name"] as? String == "alice" && accepted["standing"] as? String == "accepted")
        #expect(try bed.succeed(bob, ["requests", "list", "--json"]).json()["requests"] as? [Any] == nil
                || (try bed.succeed(bob, ["requests", "list", "--json"]).json()["requests"] as? [Any])?.isEmpty == true)
        try bed.sync(alice)
        // Bob had read both: the owed receipts say so.
        #expect(try bed.history(alice, with: "bob").outgoing.map(\.status) == ["read", "read"])

        try bed.send(bob, to: "alice", "welcome")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").incoming.bodies == ["welcome"])
        try bed.send(alice, to: "bob", "thanks")
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").incoming.bodies == ["hi, we met at the conference", "this is alice", "thanks"])
    }

    @Test func aBlockedStrangersMessagesAreDroppedUnreadAndAcknowledged() throws {
        let bed = try Testbed("blocked")
        let bob = try bed.newUser("bob"), mallory = try bed.newUser("mallory")
        try bed.addContact(mallory, bob)
        try bed.send(mallory, to: "bob", "buy now")
        try bed.sync(bob)
        let name = try #require(try onlyRequest(bed, of: bob)["name"] as? String)

        let blocked = try bed.succeed(bob, ["requests", "block", name])
        #expect(blocked.stdout.contains("Blocked \(name)"))
        try bed.send(mallory, to: "bob", "buy now, again")
        try bed.send(mallory, to: "bob", "last chance")

        let said = try bed.succeed(bob, ["sync"]).stdout
        #expect(said.hasPrefix("No new messages (0 envelopes received, ") && said.contains("dropped 2 unread: from blocked contacts"), "\(said)")
        try bed.send(mallory, to: "bob", "really the last")
        let report = try bed.sync(bob)
        #expect(report["dropped"] as? Int == 1 && report["received"] as? Int == 0 && report["messages"] as? Int == 0
                && report["quarantined"] as? Int == 0, "\(report)")
        #expect(try bed.storedEnvelopes(for: bob) == 0, "dropped envelopes are acknowledged, not left at the relay")
        #expect(try bed.storedEnvelopes(for: mallory) == 0, "nothing went back to the blocked stranger")
        #expect(try bed.history(bob, with: name).bodies == ["buy now"])
        #expect(try onlyRequest(bed, of: bob, blocked: true)["name"] as? String == name)
        let sending = try bed.hush(bob, ["send", name, "stop"])
        #expect(sending.status == 21 && sending.stderr.contains("is blocked"), "\(sending)")
        #expect(try bed.succeed(bob, ["requests", "list", "--json"]).json()["requests"] as? [Any] != nil)

        // Unblocking keeps the session where it was: the next message opens.
        try bed.succeed(bob, ["requests", "accept", name])
        try bed.send(mallory, to: "bob", "sorry")
        try bed.sync(bob)
        #expect(try bed.history(bob, with: name).bodies == ["buy now", "sorry"])
    }

    @Test func blockingAContactWithdrawsTheCredentialTheyHeldAndOthersGetTheNewOne() throws {
        let bed = try Testbed("block-contact")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), dave = try bed.newUser("dave")
        try bed.meet(alice, bob)
        try bed.meet(dave, bob)
        for user in [alice, dave, bob] { try bed.sync(user) }
        let before = try bed.auditRelay().report

        try bed.succeed(bob, ["requests", "block", "alice"])
        // The relay swapped the hash of bob's old credential for the new one
        // (it keeps only hashes; two would mean the old one still works).
        let after = try bed.auditRelay().report
        #expect(Self.credentialCount(before, bob) == 1 && Self.credentialCount(after, bob) == 1, "\(after)")

        // Dave is handed the new one and keeps writing as a contact; alice's
        // message still reaches the relay (as a first contact) but is dropped.
        try bed.sync(dave)
        try bed.send(dave, to: "bob", "still here")
        try bed.send(alice, to: "bob", "why?")
        let report = try bed.sync(bob)
        #expect(report["dropped"] as? Int == 1 && report["received"] as? Int == 1, "\(report)")
        #expect(try bed.history(bob, with: "dave").incoming.bodies.last == "still here")
        #expect(try bed.history(bob, with: "alice").incoming.bodies == ["hello"])
    }

    /// How many delivery credential hashes the relay holds for `user`'s mailbox.
    private static func credentialCount(_ report: [String: Any], _ user: User) -> Int? {
        let identities = report["identities"] as? [[String: Any]] ?? []
        return identities.first { $0["identity"] as? String == user.identityKey }?["credentials"] as? Int
    }
}
