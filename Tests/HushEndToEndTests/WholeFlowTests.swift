import Foundation
import Testing

/// The whole user flow of issue 6, every step a separate `hush` process
/// against a real relay process on loopback.
@Suite struct WholeFlowTests {
    @Test func twoUsersExchangeMessagesVerifyEachOtherSearchAndAudit() throws {
        // The relay's default first-contact work (16 bits), which the other tests' relays lower.
        let bed = try Testbed("flow", relayOptions: ["--first-contact-work-bits", "16"])
        let alice = try bed.newUser("alice")
        let bob = try bed.newUser("bob")
        let canary = "kumquat-canary-\(UInt32.random(in: 100_000...999_999))"

        let whoami = try bed.succeed(alice, ["whoami", "--json"]).json()
        #expect(whoami["address"] as? String == alice.address)
        #expect(whoami["registered"] as? Bool == true)
        #expect(whoami["relay"] as? String == bed.relay.url)

        // Both name each other from the addresses they exchanged, then talk.
        // Fetching a bundle and depositing need no login: the relay must not
        // learn who looks up whom, nor who sent a sealed envelope.
        let tokensBefore = try relayTokens(bed)
        try bed.addContact(alice, bob)
        try bed.addContact(bob, alice)

        let first = try bed.send(alice, to: "bob", "Hi Bob, the secret word is \(canary).")
        #expect(first["status"] as? String == "sent")
        #expect(first["serverId"] is Int)
        #expect(try relayTokens(bed) == tokensBefore, "contact add and send must not log in to the relay")

        // The relay holds the envelope right now (after the delivery credential and the display
        // name the first message hands over, PROTOCOL §11 and §10.4), and not a trace of the text.
        #expect(try bed.storedEnvelopes(for: bob) == 3)
        let (audit, report) = try bed.auditRelay(canary: canary)
        #expect(audit.status == 0, "\(audit)")
        let scan = try #require(report["canary"] as? [String: Any])
        #expect(scan["found"] as? Bool == false)
        #expect((scan["filesScanned"] as? Int ?? 0) > 0)

        // Bob fetches it; it is delivered (not yet read) on Alice's side once she syncs.
        let received = try bed.sync(bob)
        #expect(received["received"] as? Int == 3, "the credential, the display name and the message")
        #expect(received["messages"] as? Int == 1, "one of them a message")
        #expect(received["quarantined"] as? Int == 0)
        let bobView = try bed.history(bob, with: "alice")
        #expect(bobView.incoming.bodies == ["Hi Bob, the secret word is \(canary)."])
        #expect(try bed.storedEnvelopes(for: bob) == 0, "acknowledged envelopes are deleted")
        let unread = try bed.succeed(bob, ["chats", "--json"]).json()
        #expect((unread["conversations"] as? [[String: Any]])?.first?["unread"] as? Int == 1)

        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").outgoing.map(\.status) == ["delivered"])

        // Bob views the conversation: that marks it read and sends a read receipt.
        try bed.succeed(bob, ["history", "alice"])
        let read = try bed.succeed(bob, ["chats", "--json"]).json()
        #expect((read["conversations"] as? [[String: Any]])?.first?["unread"] as? Int == 0)
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").outgoing.map(\.status) == ["read"])

        // And the other way round.
        let reply = try bed.send(bob, to: "alice", "Got it. Dinner on Friday at the pagoda?")
        #expect(reply["status"] as? String == "sent")
        #expect(try bed.sync(alice)["received"] as? Int == 1)
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").outgoing.map(\.status) == ["delivered"])
        try bed.succeed(alice, ["history", "bob"])
        try bed.sync(bob)
        let bobFinal = try bed.history(bob, with: "alice")
        #expect(bobFinal.outgoing.map(\.status) == ["read"])
        #expect(bobFinal.map(\.direction) == ["in", "out"])
        let aliceFinal = try bed.history(alice, with: "bob")
        #expect(aliceFinal.bodies == ["Hi Bob, the secret word is \(canary).", "Got it. Dinner on Friday at the pagoda?"])
        #expect(aliceFinal.map(\.status) == ["read", "read"])

        // The conversation list.
        let chats = try bed.succeed(alice, ["chats", "--json"]).json()
        let conversations = try #require(chats["conversations"] as? [[String: Any]])
        #expect(conversations.count == 1)
        #expect(conversations.first?["contact"] as? String == "bob")
        #expect(conversations.first?["unread"] as? Int == 0)
        #expect((conversations.first?["lastMessage"] as? [String: Any])?["body"] as? String == "Got it. Dinner on Friday at the pagoda?")

        // Safety numbers: the same 60 digits on both sides.
        let aliceNumber = try #require(try bed.succeed(alice, ["verify", "bob", "--json"]).json()["safetyNumber"] as? String)
        let bobNumber = try #require(try bed.succeed(bob, ["verify", "alice", "--json"]).json()["safetyNumber"] as? String)
        #expect(aliceNumber == bobNumber)
        #expect(aliceNumber.split(separator: " ").count == 12)
        #expect(aliceNumber.filter(\.isNumber).count == 60)
        // A wrong number is refused (23) and verifies nothing.
        var wrongDigits = Array(aliceNumber.filter(\.isNumber))
        wrongDigits[7] = wrongDigits[7] == "1" ? "2" : "1"
        let wrong = try bed.hush(alice, ["verify", "bob", "--compare", String(wrongDigits)])
        #expect(wrong.status == 23, "\(wrong)")
        #expect(wrong.stderr.contains("do NOT match"))
        #expect(try contact("bob", of: alice, in: bed)["verification"] as? String == "unverified")
        // The right one (as read out, with spaces) marks the contact verified.
        let right = try bed.succeed(alice, ["verify", "bob", "--compare", bobNumber, "--json"]).json()
        #expect(right["matches"] as? Bool == true)
        #expect(try contact("bob", of: alice, in: bed)["verification"] as? String == "verified")
        #expect(try contact("alice", of: bob, in: bed)["verification"] as? String == "unverified")

        // Full-text search over the local history.
        let hits = try #require(try bed.succeed(alice, ["search", "--json", "pagoda"]).json()["hits"] as? [[String: Any]])
        #expect(hits.count == 1)
        #expect(hits.first?["body"] as? String == "Got it. Dinner on Friday at the pagoda?")
        #expect(hits.first?["contact"] as? String == "bob")
        let none = try #require(try bed.succeed(alice, ["search", "--json", "zeppelin"]).json()["hits"] as? [[String: Any]])
        #expect(none.isEmpty)

        // Nothing readable on either side's disk or at the relay.
        for user in [alice, bob] {
            let local = try bed.hush(user, ["audit", "local", "--canary", canary, "--json"])
            #expect(local.status == 0, "\(local)")
            let object = try local.json()
            #expect(object["databaseEncrypted"] as? Bool == true)
            #expect((object["canary"] as? [String: Any])?["found"] as? Bool == false)
            #expect((object["quarantined"] as? [Any])?.isEmpty == true)
        }
        let (finalAudit, finalReport) = try bed.auditRelay(canary: canary)
        #expect(finalAudit.status == 0, "\(finalAudit)")
        #expect((finalReport["canary"] as? [String: Any])?["found"] as? Bool == false)

        // The canary scan can fail: a file holding the text is found (exit 1).
        try "notes: \(canary)".write(toFile: bed.relay.dataDirectory + "/planted.txt", atomically: true, encoding: .utf8)
        let planted = try bed.auditRelay(canary: canary)
        #expect(planted.result.status == 1)
        #expect((planted.report["canary"] as? [String: Any])?["found"] as? Bool == true)
    }

    /// Session tokens the relay has issued (from its audit).
    private func relayTokens(_ bed: Testbed) throws -> Int {
        let (result, report) = try bed.auditRelay()
        try #require(result.status == 0, "\(result)")
        return try #require((report["summary"] as? [String: Any])?["tokens"] as? Int)
    }

    private func contact(_ name: String, of user: User, in bed: Testbed) throws -> [String: Any] {
        let list = try bed.succeed(user, ["contact", "list", "--json"]).json()
        let contacts = try #require(list["contacts"] as? [[String: Any]])
        return try #require(contacts.first { $0["name"] as? String == name })
    }
}
