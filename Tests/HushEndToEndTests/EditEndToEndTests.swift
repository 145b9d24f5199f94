import Foundation
import Testing

/// Edits (docs/PROTOCOL.md §10.6) between real `hush` processes and a real
/// relay, in a one-to-one and a group conversation, with a receiver that was
/// offline while the edit was made and sees only the edited text after one
/// sync; search finds the new text, not the old; and what a refused edit
/// does (says why, sends nothing). The window and the bound, which need a
/// clock of 48 hours, are EditRuleTests' (messenger, a manual clock).
@Suite struct EditEndToEndTests {
    private func message(_ bed: Testbed, _ user: User, _ name: String, _ body: String,
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(try bed.history(user, with: name).first { $0.body == body }?.raw, sourceLocation: sourceLocation)
    }

    @Test func oneToOneEditReachesAnOfflineReceiverAndSearchFindsTheNewText() throws {
        let bed = try Testbed("edits-1to1")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let sent = try bed.send(alice, to: "bob", "meet at the station")
        let sentID = String(try #require(sent["id"] as? Int))
        #expect(sent["edited"] as? Bool == false, "\(sent)")
        try bed.sync(bob)
        let bobCopyID = String(try #require(try message(bed, bob, "alice", "meet at the station")["id"] as? Int))

        // Bob is offline from here: alice edits twice.
        try bed.succeed(alice, ["edit", "bob", sentID, "meet at the harbour"])
        let edited = try bed.succeed(alice, ["edit", "bob", sentID, "meet at the bridge", "--json"]).json()
        #expect(edited["body"] as? String == "meet at the bridge" && edited["edited"] as? Bool == true && edited["editedAt"] != nil,
                "\(edited)")

        try bed.sync(bob)
        let bobView = try bed.history(bob, with: "alice")
        #expect(bobView.bodies == ["hello", "hi", "meet at the bridge"], "only the edited text: \(bobView)")
        let copy = try message(bed, bob, "alice", "meet at the bridge")
        #expect(copy["edited"] as? Bool == true && copy["editedAt"] is Int, "\(copy)")
        let shown = try bed.succeed(bob, ["history", "alice", "--no-receipts"]).stdout
        #expect(shown.contains("meet at the bridge (edited)"), "\(shown)")
        let found = try bed.succeed(bob, ["search", "bridge", "--json"]).stdout
        #expect(found.contains("meet at the bridge"), "\(found)")
        for old in ["station", "harbour"] {
            let stale = try bed.succeed(bob, ["search", old, "--json"]).json()
            #expect((stale["hits"] as? [Any])?.isEmpty == true, "the old text is not found: \(stale)")
        }
        let versions = try bed.succeed(bob, ["history", "alice", "--edits", bobCopyID, "--json"]).json()
        let texts = ((versions["versions"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }
        #expect(texts == ["meet at the station", "meet at the harbour", "meet at the bridge"], "\(versions)")
        let listed = try bed.succeed(bob, ["history", "alice", "--edits", bobCopyID]).stdout
        #expect(listed.contains("original: meet at the station") && listed.contains("edit 2: meet at the bridge"), "\(listed)")

        // Bob listens while alice edits again: one "edited" event with the new text.
        let listened = try bed.listen(bob, seconds: 8, while: { try bed.succeed(alice, ["edit", "bob", sentID, "meet at noon"]) },
                                      until: "\"event\":\"edited\"")
        let event = try #require(listened.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.first { $0["event"] as? String == "edited" }, "\(listened)")
        #expect(event["id"] as? Int == Int(bobCopyID) && event["body"] as? String == "meet at noon" && event["edited"] as? Bool == true,
                "\(event)")
    }

    @Test func groupEditReachesAMemberWhoWasOfflineAndOthersCannotEditIt() throws {
        let bed = try Testbed("edits-group")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }
        try bed.succeed(alice, ["group", "create", "hikers", "bob", "carol"])
        for user in [bob, carol, bob, carol] { try bed.sync(user) }
        _ = try bed.send(alice, to: "hikers", "summit at noon")
        try bed.sync(bob)
        let bobCopyID = String(try #require(try message(bed, bob, "hikers", "summit at noon")["id"] as? Int))
        let bobOwn = String(try #require(try bed.send(bob, to: "hikers", "I bring the map")["id"] as? Int))

        // Carol is offline while bob edits his message.
        try bed.succeed(bob, ["edit", "hikers", bobOwn, "I bring the map and a compass"])
        // Bob cannot edit alice's message: refused with the reason, nothing sent.
        let before = try bed.outbox(bob).count
        let refused = try bed.hush(bob, ["edit", "hikers", bobCopyID, "summit cancelled"])
        #expect(refused.status == 1 && !refused.crashed && refused.stderr.contains("only its author can edit"), "\(refused)")
        #expect(try bed.outbox(bob).count == before)

        for user in [carol, alice] { try bed.sync(user) }
        for user in [carol, alice] {
            let view = try bed.history(user, with: "hikers").bodies
            #expect(view.contains("I bring the map and a compass") && !view.contains("I bring the map"), "\(view)")
            #expect(view.contains("summit at noon"), "\(view)")
        }
        let shown = try bed.succeed(carol, ["history", "hikers", "--no-receipts"]).stdout
        #expect(shown.contains("I bring the map and a compass (edited)"), "\(shown)")
    }

    @Test func badEditsSayWhyAndSendNothing() throws {
        let bed = try Testbed("edits-bad")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        try bed.acquaint(alice, bob)
        try bed.acquaint(alice, carol)
        let toCarol = try #require(try bed.send(alice, to: "carol", "for carol")["id"] as? Int)
        _ = try bed.send(alice, to: "bob", "one")
        let before = try bed.outbox(alice).count

        let missing = try bed.hush(alice, ["edit", "bob", "99999", "to nothing"])
        #expect(missing.status != 0 && !missing.crashed && missing.stderr.contains("no message with id 99999"), "\(missing)")
        let elsewhere = try bed.hush(alice, ["edit", "bob", String(toCarol), "moved"])
        #expect(elsewhere.status != 0 && elsewhere.stderr.contains("no message with id \(toCarol)"), "\(elsewhere)")
        // "hi" is bob's message in alice's history (from acquaint): not hers to edit.
        let theirs = try #require(try bed.history(alice, with: "bob").first { $0.body == "hi" }?.raw["id"] as? Int)
        let notHers = try bed.hush(alice, ["edit", "bob", String(theirs), "forged"])
        #expect(notHers.status == 1 && notHers.stderr.contains("only its author can edit"), "\(notHers)")
        let empty = try bed.hush(alice, ["edit", "bob", String(toCarol), ""])
        #expect(empty.status == 64 && empty.stderr.contains("empty"), "\(empty)")
        #expect(try bed.outbox(alice).count == before)
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").bodies == ["hello", "hi", "one"])
    }
}
