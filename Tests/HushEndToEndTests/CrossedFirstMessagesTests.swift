import Foundation
import Testing

/// Both sides add each other and write before either has synced: two
/// sessions start at once. One wins the tie-break (docs/PROTOCOL.md §11);
/// the other side's first message, sealed on the losing session, is reported
/// undecryptable and sent again on the winning one. Nothing is lost.
@Suite struct CrossedFirstMessagesTests {
    @Test func bothFirstMessagesArriveWhenBothSidesStartASessionAtOnce() throws {
        let bed = try Testbed("crossed")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.addContact(alice, bob)
        try bed.addContact(bob, alice)
        try bed.send(alice, to: "bob", "alice writes first")
        try bed.send(bob, to: "alice", "bob writes first too")
        for _ in 0..<3 {
            try bed.sync(alice)
            try bed.sync(bob)
        }
        #expect(try bed.history(bob, with: "alice").incoming.bodies == ["alice writes first"])
        #expect(try bed.history(alice, with: "bob").incoming.bodies == ["bob writes first too"])
        // The loser's first message is marked resent in its sender's history.
        let firsts = try [bed.history(alice, with: "bob"), bed.history(bob, with: "alice")].flatMap(\.outgoing)
        #expect(firsts.filter { $0.raw["resent"] as? Bool == true }.count == 1, "\(firsts)")
        // And the surviving session carries on both ways.
        try bed.send(alice, to: "bob", "after the crossing")
        try bed.send(bob, to: "alice", "same here")
        try bed.sync(alice)
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").incoming.bodies.last == "after the crossing")
        #expect(try bed.history(alice, with: "bob").incoming.bodies.last == "same here")
        for user in [alice, bob] {
            let audit = try bed.hush(user, ["audit", "local", "--json"]).json()
            // What the losing session carried is set aside on one side (and reported): the
            // delivery credential its first envelope hands over, and the first message; nothing else.
            #expect(((audit["quarantined"] as? [Any])?.count ?? 0) <= 2, "\(user.name): \(audit)")
        }
    }
}
