import Foundation
import Testing

/// The relay limits deposits without a delivery credential (first contacts)
/// to ten at once per source and target, then one a minute. Everything here
/// runs on one loopback address against a relay with its default limits:
/// the side that starts a conversation, and members a group introduces,
/// hand over their credential with their first envelope, so nobody who was
/// answered or introduced writes as a stranger (docs/PROTOCOL.md §11).
@Suite struct FirstContactCredentialTests {
    /// Bob accepts Alice's request and answers with a dozen sends: all are
    /// accepted by the relay at once (before, 7 were and then 429 "retry in 59 s").
    @Test func theAnsweringSideWritesWithTheCredentialTheFirstMessageCarried() throws {
        let bed = try Testbed("answer-credential")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.send(alice, to: "bob", "hello bob, it is alice")
        try bed.sync(bob)
        let list = try bed.succeed(bob, ["requests", "list", "--json"]).json()
        let name = try #require((list["requests"] as? [[String: Any]])?.first?["name"] as? String, "\(list)")
        try bed.succeed(bob, ["requests", "accept", name, "--name", "alice"])
        let answers = (1...12).map { "answer \($0)" }
        for text in answers {
            let result = try bed.hush(bob, ["send", "alice", text, "--json"])
            #expect(result.status == 0, "\(text): \(result)")
            #expect(try result.json()["status"] as? String == "sent", "\(text): \(result)")
        }
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").incoming.bodies == answers)
    }

    /// Four people meet through an admin and write to their new group at once
    /// and again: every send is accepted (the group tests and the demo used to
    /// raise the relay's limit to hide the first-contact refusals).
    ///
    /// The admin and each member have written to each other before (as
    /// people who make a group together have): what is tested is that the
    /// members the group introduces to each other write without the limit.
    /// With an admin whose members never answered her, 11 first contacts
    /// reached one member's mailbox from this loopback address (the
    /// admin's, unanswered, among them), over the relay's burst of 10, and a
    /// member's key waited a minute for the bucket (seen under load).
    @Test func membersOfANewGroupWriteToItWithoutARaisedLimit() throws {
        let bed = try Testbed("group-credential")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol"), dave = try bed.newUser("dave")
        for user in [bob, carol, dave] { try bed.acquaint(alice, user) }
        try bed.succeed(alice, ["group", "create", "crew", "bob", "carol", "dave"])
        for user in [alice, bob, carol, dave, bob, carol, dave] { try bed.sync(user) }
        var sent: Set<String> = []
        for round in 1...3 {
            for user in [alice, bob, carol, dave] {
                let text = "\(user.name) round \(round)"
                let result = try bed.hush(user, ["send", "crew", text, "--json"])
                #expect(result.status == 0, "\(text): \(result)")
                sent.insert(text)
            }
        }
        for user in [alice, bob, carol, dave, alice, bob, carol, dave] { try bed.sync(user) }
        for user in [alice, bob, carol, dave] {
            #expect(Set(try bed.history(user, with: "crew").bodies) == sent, "\(user.name)")
        }
    }
}
