import Foundation
import Testing

/// A large group (docs/PROTOCOL.md §18.4) between three users as real
/// `hush` processes and a real relay with its default limits: Alice creates
/// it with Bob and Carol (who never met each other); each reads the other,
/// with no contact made; Carol is removed and reads nothing after.
@Suite struct LargeGroupTests {
    @Test func createTalkAndRemoveWithMembersWhoNeverMet() throws {
        let bed = try Testbed("large-groups")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }

        let created = try bed.succeed(alice, ["group", "create", "town", "bob", "carol", "--large"])
        #expect(created.stdout.contains("identity key"), "the creator is told messages are attributable: \(created.stdout)")
        for user in [bob, carol] { try bed.sync(user) }
        let info = try bed.succeed(carol, ["group", "info", "town", "--json"]).json()
        let members = try #require(info["members"] as? [[String: Any]])
        #expect(members.count == 3 && members.allSatisfy { $0["hasKey"] as? Bool == true }, "\(info)")

        try bed.send(bob, to: "town", "hello from bob")
        try bed.send(alice, to: "town", "hello from alice")
        for user in [carol, bob] { try bed.sync(user) }
        #expect(Set(try bed.history(carol, with: "town").map(\.body)) == ["hello from bob", "hello from alice"])
        #expect(Set(try bed.history(bob, with: "town").map(\.body)) == ["hello from bob", "hello from alice"])
        let contacts = try bed.succeed(carol, ["contact", "list", "--json"]).stdout
        #expect(!contacts.contains("\"bob\""), "no contact is made for a member: \(contacts)")

        try bed.succeed(alice, ["group", "remove", "town", "carol"])
        for user in [bob, carol] { try bed.sync(user) }
        try bed.send(bob, to: "town", "carol is gone")
        try bed.sync(carol)
        #expect(!(try bed.history(carol, with: "town").map(\.body)).contains("carol is gone"))
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "town").map(\.body).contains("carol is gone"))
    }
}
