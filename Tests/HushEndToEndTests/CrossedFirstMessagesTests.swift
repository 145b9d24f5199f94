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
            // delivery credential and the display name its first envelopes hand over, and the first
            // message; nothing else.
            #expect(((audit["quarantined"] as? [Any])?.count ?? 0) <= 3, "\(user.name): \(audit)")
        }
    }

    /// Two members an admin introduces open the invitation at the same moment
    /// and each starts a session with the other to send its group key: the
    /// first envelopes cross. The losing side's key (and credential) is
    /// reported undecryptable and sealed again on the winning session, so both
    /// read each other's group messages (before, one member's messages waited
    /// for a key that never came, on every sync). Whether two processes
    /// overlap is up to the machine, so the set-up is tried until the
    /// envelopes did cross (a set-aside envelope says so).
    @Test func groupMembersWhoseFirstKeysCrossReadEachOther() throws {
        var crossed = false
        for attempt in 1...4 where !crossed {
            let bed = try Testbed("crossed-group-\(attempt)")
            let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
            for user in [bob, carol] { try bed.meet(alice, user) }
            try bed.succeed(alice, ["group", "create", "pair", "bob", "carol"])
            let syncs = try [bob, carol].map { try bed.spawn($0, ["sync", "--json"]) }
            for sync in syncs { #expect(sync.finish(timeout: 60).status == 0) }
            for user in [bob, carol, bob, carol] { try bed.sync(user) }
            let setAside = try [bob, carol].map { user in
                (try bed.hush(user, ["audit", "local", "--json"]).json()["quarantined"] as? [Any])?.count ?? 0
            }
            guard setAside.reduce(0, +) > 0 else { continue }
            crossed = true

            for (user, other) in [(bob, "carol"), (carol, "bob")] {
                let info = try bed.succeed(user, ["group", "info", "pair", "--json"]).json()
                let member = (info["members"] as? [[String: Any]])?.first { $0["name"] as? String == other }
                #expect(member?["hasKey"] as? Bool == true, "\(user.name) holds \(other)'s key: \(info)")
            }
            try bed.send(bob, to: "pair", "bob after the crossing")
            try bed.send(carol, to: "pair", "carol after the crossing")
            for user in [bob, carol, bob, carol] {
                let report = try bed.sync(user)
                #expect(report["waitingForGroupKeys"] as? Int ?? 0 == 0, "\(user.name): \(report)")
            }
            #expect(try bed.history(bob, with: "pair").incoming.bodies == ["carol after the crossing"])
            #expect(try bed.history(carol, with: "pair").incoming.bodies == ["bob after the crossing"])
        }
        #expect(crossed, "the members' first envelopes never crossed in 4 attempts")
    }
}
