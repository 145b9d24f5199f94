import Foundation
import Testing

/// Deletion and disappearing messages (docs/PROTOCOL.md §10.7) between real
/// `hush` processes and a real relay, in a one-to-one and a group
/// conversation, with homes that were offline while a deletion and an
/// expiry happened; and what bad input does (nothing changes).
@Suite struct DeletionAndDisappearingTests {
    /// The messages of `user`'s history with `name`, as --json prints them.
    private func history(_ bed: Testbed, _ user: User, _ name: String) throws -> [[String: Any]] {
        try bed.history(user, with: name).map(\.raw)
    }

    private func blobs(_ user: User) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: user.home + "/attachments")) ?? []).filter { $0.hasSuffix(".blob") }
    }

    @Test func oneToOneDeletionForEveryoneRemovesTextFileAndSearchEntryAlsoForAnOfflineReceiver() throws {
        let bed = try Testbed("delete-1to1")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let text = try bed.send(alice, to: "bob", "the pineapple plan")
        let path = bed.root + "/plan.txt"
        try Data("pineapple blueprint".utf8).write(to: URL(fileURLWithPath: path))
        let file = try bed.succeed(alice, ["send", "bob", "--file", path, "--json"]).json()
        try bed.sync(bob)
        let attachmentID = try #require(try bed.succeed(bob, ["attachments", "--json"]).json()["attachments"] as? [[String: Any]])
            .last?["id"] as? Int
        try bed.succeed(bob, ["fetch", String(try #require(attachmentID)), "--out", bed.root + "/got.txt"])
        #expect(blobs(bob).count == 1, "bob holds the fetched blob")
        #expect(try bed.succeed(bob, ["search", "pineapple", "--json"]).stdout.contains("the pineapple plan"))

        // Bob is offline while alice deletes both for everyone, and sends one more she deletes before he ever syncs.
        let textID = String(try #require(text["id"] as? Int)), fileID = String(try #require(file["id"] as? Int))
        let deleted = try bed.succeed(alice, ["delete", "bob", textID, "--for-everyone", "--json"]).json()
        #expect(deleted["deleted"] as? Bool == true && deleted["forEveryone"] as? Bool == true, "\(deleted)")
        try bed.succeed(alice, ["delete", "bob", fileID, "--for-everyone"])
        let unseen = try bed.send(alice, to: "bob", "never to be read")
        try bed.succeed(alice, ["delete", "bob", String(try #require(unseen["id"] as? Int)), "--for-everyone"])
        #expect(try bed.succeed(alice, ["search", "pineapple", "--json"]).stdout.contains("pineapple") == false)

        try bed.sync(bob)
        let bobView = try history(bed, bob, "alice")
        for client in [text, file, unseen].compactMap({ $0["clientMessageId"] as? String }) {
            let copy = try #require(bobView.first { $0["clientMessageId"] as? String == client }, "\(bobView)")
            #expect(copy["deleted"] as? Bool == true && copy["body"] as? String == "", "\(copy)")
        }
        #expect(blobs(bob).isEmpty, "the fetched blob is gone from bob's disk")
        #expect((try bed.succeed(bob, ["attachments", "--json"]).json()["attachments"] as? [Any])?.isEmpty == true)
        #expect(try bed.succeed(bob, ["search", "pineapple", "--json"]).stdout.contains("pineapple") == false)
        #expect(try bed.succeed(bob, ["search", "never", "--json"]).stdout.contains("never to be read") == false)
        let shown = try bed.succeed(bob, ["history", "alice", "--no-receipts"]).stdout
        #expect(shown.contains("(deleted)") && !shown.contains("never to be read") && !shown.contains("pineapple"), "\(shown)")

        // Deleting here only: bob's own copy of a message alice keeps.
        let kept = try bed.send(alice, to: "bob", "keep this")
        try bed.sync(bob)
        let bobKeptID = try #require(try history(bed, bob, "alice").first { $0["body"] as? String == "keep this" }?["id"] as? Int)
        try bed.succeed(bob, ["delete", "alice", String(bobKeptID)])
        #expect(try history(bed, bob, "alice").first { $0["id"] as? Int == bobKeptID }?["deleted"] as? Bool == true)
        try bed.sync(alice)
        #expect(try history(bed, alice, "bob").first { $0["id"] as? Int == kept["id"] as? Int }?["body"] as? String == "keep this")

        // Bob listens while alice deletes another: one "deleted" event naming his copy.
        let listenedTo = try bed.send(alice, to: "bob", "heard, then gone")
        try bed.sync(bob)
        let bobListenedID = try #require(try history(bed, bob, "alice").first { $0["body"] as? String == "heard, then gone" }?["id"] as? Int)
        let listened = try bed.listen(bob, seconds: 8, while: {
            try bed.succeed(alice, ["delete", "bob", String(try #require(listenedTo["id"] as? Int)), "--for-everyone"])
        }, until: "\"event\":\"deleted\"")
        let event = try #require(listened.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.first { $0["event"] as? String == "deleted" }, "\(listened)")
        #expect(event["id"] as? Int == bobListenedID && event["contact"] as? String == "alice", "\(event)")
    }

    @Test func groupDeletionForEveryoneReachesAMemberWhoWasOffline() throws {
        let bed = try Testbed("delete-group")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }
        try bed.succeed(alice, ["group", "create", "hikers", "bob", "carol"])
        for user in [bob, carol, bob, carol] { try bed.sync(user) }
        let sent = try bed.send(alice, to: "hikers", "secret summit route")
        try bed.sync(bob)
        #expect(try bed.succeed(bob, ["search", "summit", "--json"]).stdout.contains("secret summit route"))
        let bobCopyID = String(try #require(try history(bed, bob, "hikers").first { $0["body"] as? String == "secret summit route" }?["id"] as? Int))
        // Bob may not delete alice's message for everyone.
        let refused = try bed.hush(bob, ["delete", "hikers", bobCopyID, "--for-everyone"])
        #expect(refused.status == 1 && !refused.crashed && refused.stderr.contains("only its author"), "\(refused)")

        // Carol stays offline while alice deletes it.
        try bed.succeed(alice, ["delete", "hikers", String(try #require(sent["id"] as? Int)), "--for-everyone"])
        for user in [bob, carol] {
            try bed.sync(user)
            let copy = try #require(try history(bed, user, "hikers").first { $0["clientMessageId"] as? String == sent["clientMessageId"] as? String })
            #expect(copy["deleted"] as? Bool == true && copy["body"] as? String == "", "\(user.name): \(copy)")
            #expect(try bed.succeed(user, ["search", "summit", "--json"]).stdout.contains("summit route") == false)
        }

        // A member's timer reaches everyone, as a change each history shows.
        try bed.succeed(carol, ["disappear", "hikers", "1w"])
        for user in [alice, bob] {
            try bed.sync(user)
            #expect(try history(bed, user, "hikers").last?["body"] as? String == "set disappearing messages to 1 week", "\(user.name)")
        }
        // A message sent from then on carries the timer to every member.
        let timed = try bed.send(alice, to: "hikers", "short-lived")
        #expect(timed["expiresAfter"] as? Int == 604_800, "\(timed)")
        for user in [bob, carol] {
            try bed.sync(user)
            #expect(try history(bed, user, "hikers").last?["expiresAfter"] as? Int == 604_800, "\(user.name)")
        }
        let chats = try bed.succeed(bob, ["chats"]).stdout
        #expect(!chats.contains("secret summit route"), "\(chats)")
    }

    @Test func aTimerChangeIsSeenByBothAndExpiryRemovesTheMessageOnEachSideAlsoOffline() throws {
        let bed = try Testbed("disappear-1to1")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        // A 2-second timer through the hidden test knob; users choose 1h, 1d, 1w or off.
        let change = try bed.succeed(alice, ["disappear", "bob", "1h", "--seconds", "2", "--json"]).json()
        #expect(change["disappearingSeconds"] as? Int == 2, "\(change)")
        let sent = try bed.send(alice, to: "bob", "burn after reading")
        #expect(sent["expiresAfter"] as? Int == 2 && sent["expiresAt"] == nil, "\(sent)")
        try bed.sync(bob)
        let bobView = try history(bed, bob, "alice")
        #expect(bobView.contains { $0["body"] as? String == "set disappearing messages to 2 seconds" && $0["direction"] as? String == "in" },
                "\(bobView)")
        #expect(bobView.last?["expiresAfter"] as? Int == 2 && bobView.last?["expiresAt"] == nil, "not read yet: \(bobView)")
        Thread.sleep(forTimeInterval: 3)
        #expect(try history(bed, bob, "alice").last?["body"] as? String == "burn after reading", "unread: its timer has not started")

        // Bob reads it (history sends the read receipt); alice stays offline.
        try bed.succeed(bob, ["history", "alice"])
        Thread.sleep(forTimeInterval: 3)
        #expect(try history(bed, bob, "alice").contains { $0["clientMessageId"] as? String == sent["clientMessageId"] as? String } == false)
        #expect(try bed.succeed(bob, ["search", "burn", "--json"]).stdout.contains("burn after reading") == false)

        // Alice was away while it ran out on her side too: one sync, and it is gone, never shown again.
        try bed.sync(alice)
        #expect(try history(bed, alice, "bob").contains { $0["id"] as? Int == sent["id"] as? Int } == false)
        #expect(try bed.succeed(alice, ["search", "burn", "--json"]).stdout.contains("burn after reading") == false)
        #expect(try history(bed, alice, "bob").contains { $0["body"] as? String == "set disappearing messages to 2 seconds" },
                "the change itself stays")

        try bed.succeed(bob, ["disappear", "alice", "off"])
        try bed.sync(alice)
        #expect(try history(bed, alice, "bob").last?["body"] as? String == "turned off disappearing messages")
        #expect(try bed.send(alice, to: "bob", "for keeps")["expiresAfter"] == nil)
    }

    @Test func aGroupMessageExpiresForEveryMemberIncludingOneThatWasOffline() throws {
        let bed = try Testbed("disappear-group")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }
        try bed.succeed(alice, ["group", "create", "team", "bob", "carol"])
        for user in [bob, carol, bob, carol] { try bed.sync(user) }
        // Carol is offline from here on: she misses the timer change, the message and every read.
        let change = try bed.succeed(alice, ["disappear", "team", "1h", "--seconds", "2", "--json"]).json()
        #expect(change["disappearingSeconds"] as? Int == 2, "\(change)")
        let sent = try bed.send(alice, to: "team", "meet at the old mill")
        #expect(sent["expiresAfter"] as? Int == 2 && sent["expiresAt"] == nil, "\(sent)")
        let client = try #require(sent["clientMessageId"] as? String)
        func holds(_ user: User) throws -> Bool {
            try history(bed, user, "team").contains { $0["clientMessageId"] as? String == client }
        }
        func finds(_ user: User) throws -> Bool {
            try bed.succeed(user, ["search", "mill", "--json"]).stdout.contains("meet at the old mill")
        }

        // Delivered but not read: no timer runs anywhere, however long it waits.
        try bed.sync(bob)
        Thread.sleep(forTimeInterval: 3)
        try bed.sync(alice)
        #expect(try holds(bob) && holds(alice), "unread: neither timer has started")

        // Bob reads it (history sends the read receipt): his timer starts now.
        try bed.succeed(bob, ["history", "team"])
        Thread.sleep(forTimeInterval: 3)
        #expect(try holds(bob) == false, "expired on bob's side")
        #expect(try finds(bob) == false)

        // Alice's copy ran out 2 seconds after bob's read receipt, the first one naming it.
        try bed.sync(alice)
        #expect(try holds(alice) == false, "expired on alice's side from bob's read receipt")
        #expect(try finds(alice) == false)
        #expect(try history(bed, alice, "team").contains { $0["body"] as? String == "set disappearing messages to 2 seconds" },
                "the change itself stays")

        // Carol was offline the whole time and has not read it: her timer has not started, so it is there.
        try bed.sync(carol)
        let carolCopy = try #require(try history(bed, carol, "team").first { $0["clientMessageId"] as? String == client })
        #expect(carolCopy["body"] as? String == "meet at the old mill" && carolCopy["expiresAfter"] as? Int == 2
                && carolCopy["expiresAt"] == nil, "unread on carol's side: \(carolCopy)")
        #expect(try finds(carol))
        Thread.sleep(forTimeInterval: 3)
        #expect(try holds(carol), "still unread: still there")

        // Once carol reads it, it lives 2 seconds more on her side too.
        try bed.succeed(carol, ["history", "team"])
        Thread.sleep(forTimeInterval: 3)
        #expect(try holds(carol) == false, "expired on carol's side after she read it")
        #expect(try finds(carol) == false)
    }

    @Test func aPipedChatDeletesAndSetsTheTimer() throws {
        let bed = try Testbed("delete-chat")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let sent = try bed.send(alice, to: "bob", "typo in here")
        let id = try #require(sent["id"] as? Int)
        let chat = try bed.hush(alice, ["chat", "bob"], stdin: "/delete! \(id)\n/disappear 1d\n/delete 99999\n/disappear 2d\nafter the change\n")
        #expect(chat.status == 0 && !chat.crashed, "\(chat)")
        #expect(chat.stdout.contains("message [\(id)] deleted for everyone") && chat.stdout.contains("set disappearing messages to 1 day"),
                "\(chat)")
        #expect(chat.stdout.contains("not deleted: ") && chat.stdout.contains("/disappear takes 1h, 1d, 1w or off"), "\(chat)")
        // Said once (its event is not shown again), and an unknown id points at the chat's own /history.
        #expect(!chat.stdout.contains("message [\(id)] was deleted"), "\(chat)")
        #expect(chat.stdout.contains("no message with id 99999 in this conversation: /history shows the ids"), "\(chat)")
        try bed.sync(bob)
        let bobView = try history(bed, bob, "alice")
        #expect(bobView.first { $0["clientMessageId"] as? String == sent["clientMessageId"] as? String }?["deleted"] as? Bool == true)
        #expect(bobView.last?["body"] as? String == "after the change" && bobView.last?["expiresAfter"] as? Int == 86_400, "\(bobView)")
    }

    @Test func badDeletionsAndTimersSayWhyAndChangeNothing() throws {
        let bed = try Testbed("delete-bad")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let sent = try bed.send(alice, to: "bob", "still here")
        let before = try bed.outbox(alice).count
        let missing = try bed.hush(alice, ["delete", "bob", "99999", "--for-everyone"])
        #expect(missing.status != 0 && !missing.crashed && missing.stderr.contains("no message with id 99999"), "\(missing)")
        let badTimer = try bed.hush(alice, ["disappear", "bob", "2d"])
        #expect(badTimer.status == 64 && badTimer.stderr.contains("1h, 1d, 1w or off"), "\(badTimer)")
        try bed.sync(bob)
        let bobCopyID = String(try #require(try history(bed, bob, "alice").last?["id"] as? Int))
        let notYours = try bed.hush(bob, ["delete", "alice", bobCopyID, "--for-everyone"])
        #expect(notYours.status == 1 && notYours.stderr.contains("only its author can delete it for everyone"), "\(notYours)")
        #expect(try bed.outbox(alice).count == before)
        #expect(try history(bed, alice, "bob").first { $0["id"] as? Int == sent["id"] as? Int }?["deleted"] as? Bool == false)
        try bed.succeed(alice, ["delete", "bob", String(try #require(sent["id"] as? Int))])
        let twice = try bed.hush(alice, ["delete", "bob", String(try #require(sent["id"] as? Int)), "--for-everyone"])
        #expect(twice.status == 1 && twice.stderr.contains("deleted already"), "\(twice)")
    }
}
