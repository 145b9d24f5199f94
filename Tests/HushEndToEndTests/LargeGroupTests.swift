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

extension LargeGroupTests {
    /// Bob restores a backup: it holds no derived chain (PROTOCOL §19.3), so
    /// he sends nothing under the state he lost his place in and asks Alice
    /// for the next one; once it arrives he writes again and Carol reads him.
    @Test func aRestoredMemberAsksForANewStateAndTalksAgain() throws {
        let bed = try Testbed("large-group-restore")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }
        try bed.succeed(alice, ["group", "create", "town", "bob", "carol", "--large"])
        for user in [bob, carol] { try bed.sync(user) }
        try bed.send(bob, to: "town", "before the backup")

        let key = try BackupTests.recoveryKey(bed, bob)
        let archive = try BackupTests.backup(bed, bob)
        try FileManager.default.removeItem(atPath: bob.home)
        let restoredBob = User(name: "bob", home: bed.root + "/new-machine/bob", address: bob.address, identityKey: bob.identityKey)
        try FileManager.default.createDirectory(atPath: bed.root + "/new-machine", withIntermediateDirectories: true)
        let restored = try BackupTests.restore(bed, archive, home: restoredBob.home, key: key)
        #expect(restored.status == 0, "\(restored)")

        let refused = try bed.hush(restoredBob, ["send", "town", "lost my place"])
        #expect(refused.status != 0 && refused.stderr.contains("lost its place"), "\(refused)")
        try bed.sync(alice)
        let info = try bed.succeed(alice, ["group", "info", "town", "--json"]).json()
        #expect(info["epoch"] as? Int == 2, "the admin wrote the next state: \(info)")
        for user in [restoredBob, carol] { try bed.sync(user) }
        try bed.send(restoredBob, to: "town", "back after the restore")
        try bed.sync(carol)
        #expect(Set(try bed.history(carol, with: "town").map(\.body)) == ["before the backup", "back after the restore"])
    }
}
