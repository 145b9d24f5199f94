import Foundation
import Testing

/// Bob starts over with a new identity key. Alice must not send to it until
/// she has looked at the new safety number and accepted it.
@Suite struct IdentityChangeTests {
    @Test func aChangedIdentityBlocksSendingUntilAccepted() throws {
        let bed = try Testbed("identity")
        let alice = try bed.newUser("alice")
        var bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.send(alice, to: "bob", "to the old bob")
        try bed.sync(bob)
        let oldAddress = bob.address

        // Bob replaces his identity (old keys and messages gone) and registers the new one.
        bob = try bed.initialise(bob, relayURL: bed.relay.url, force: true)
        #expect(bob.address != oldAddress)
        // The new Bob adds Alice straight away (his side starts a session too).
        try bed.addContact(bob, alice)

        // Alice learns the new address: recorded as pending, refused with 20 and a clear message.
        let add = try bed.hush(alice, ["contact", "add", "bob", bob.address])
        #expect(add.status == 20, "\(add)")
        #expect(add.stderr.contains("identity key has changed"), "\(add.stderr)")
        #expect(add.stderr.contains("hush contact accept bob"))

        let blocked = try bed.hush(alice, ["send", "bob", "this must not leave"])
        #expect(blocked.status == 20, "\(blocked)")
        #expect(blocked.stderr.contains("sending is blocked"))
        #expect(try bed.history(alice, with: "bob").bodies == ["to the old bob"], "nothing was queued")
        #expect(try bed.outbox(alice).isEmpty)

        let listed = try bed.succeed(alice, ["contact", "list", "--json"]).json()
        let entry = try #require((listed["contacts"] as? [[String: Any]])?.first { $0["name"] as? String == "bob" })
        #expect(entry["identityChanged"] as? Bool == true)
        #expect(entry["verification"] as? String == "changed")
        #expect(try bed.succeed(alice, ["contact", "list"]).stdout.contains("IDENTITY CHANGED"))

        // The number to compare is the one for the new key.
        let verify = try bed.succeed(alice, ["verify", "bob", "--json"]).json()
        let pendingNumber = try #require(verify["safetyNumber"] as? String)
        #expect(pendingNumber.filter(\.isNumber).count == 60)
        #expect(verify["verification"] as? String == "changed")
        #expect(try bed.succeed(alice, ["verify", "bob"]).stdout.contains("CHANGED"))

        let accept = try bed.hush(alice, ["contact", "accept", "bob"])
        #expect(accept.status == 0, "\(accept)")
        let accepted = try bed.succeed(alice, ["contact", "list", "--json"]).json()
        let now = try #require((accepted["contacts"] as? [[String: Any]])?.first { $0["name"] as? String == "bob" })
        #expect(now["identityChanged"] as? Bool == false)
        #expect(now["verification"] as? String == "unverified")
        #expect(now["address"] as? String == bob.address)
        // Accepting twice is refused: there is nothing left to accept.
        #expect(try bed.hush(alice, ["contact", "accept", "bob"]).status == 21)

        #expect(try bed.send(alice, to: "bob", "to the new bob")["status"] as? String == "sent")
        // The message, and alice's display name sealed again to the new key (PROTOCOL §10.4).
        #expect(try bed.sync(bob)["received"] as? Int == 2)
        #expect(try bed.history(bob, with: "alice").incoming.bodies == ["to the new bob"])
        #expect(try bed.succeed(bob, ["contact", "list", "--json"]).json()["contacts"].flatMap { $0 as? [[String: Any]] }?
            .first?["profileName"] as? String == "alice")

        // Both sides now see the number Alice was shown for the new key.
        let bobNumber = try bed.succeed(bob, ["verify", "alice", "--json"]).json()["safetyNumber"] as? String
        #expect(bobNumber == pendingNumber)
        #expect(try bed.succeed(alice, ["verify", "bob", "--json"]).json()["safetyNumber"] as? String == pendingNumber)
    }
}
