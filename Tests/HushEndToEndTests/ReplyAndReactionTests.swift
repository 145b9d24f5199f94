import Foundation
import Testing

/// Replies and reactions (docs/PROTOCOL.md §10.5) between real `hush`
/// processes and a real relay, in a one-to-one and a group conversation,
/// with a receiver that was offline while they were sent and catches up
/// with one sync; and what bad input does (nothing is sent).
@Suite struct ReplyAndReactionTests {
    /// The message with `body` in `user`'s history with `name`.
    private func message(_ bed: Testbed, _ user: User, _ name: String, _ body: String,
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(try bed.history(user, with: name).first { $0.body == body }?.raw, sourceLocation: sourceLocation)
    }

    private func emoji(_ message: [String: Any]) -> [String] {
        ((message["reactions"] as? [[String: Any]]) ?? []).compactMap { $0["emoji"] as? String }.sorted()
    }

    @Test func oneToOneReplyAndReactionsReachAnOfflineReceiver() throws {
        let bed = try Testbed("replies-1to1")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let question = try bed.send(alice, to: "bob", "dinner at 8?")
        let questionID = try #require(question["id"] as? Int)
        #expect((question["reactions"] as? [Any])?.isEmpty == true, "\(question)")
        try bed.sync(bob)
        let bobCopy = try message(bed, bob, "alice", "dinner at 8?")
        let bobCopyID = String(try #require(bobCopy["id"] as? Int))

        // Alice is offline from here: bob replies and sets, changes and removes a reaction.
        let reply = try bed.succeed(bob, ["reply", "alice", bobCopyID, "yes, see you", "--json"]).json()
        let replyTo = try #require(reply["replyTo"] as? [String: Any], "\(reply)")
        #expect(replyTo["id"] as? Int == Int(bobCopyID) && replyTo["clientMessageId"] as? String == question["clientMessageId"] as? String)
        try bed.succeed(bob, ["react", "alice", bobCopyID, "👍"])
        try bed.succeed(bob, ["react", "alice", bobCopyID, "🎉"])
        // Bob's reaction to his own reply is removed in the end, and his reaction to the question stays 🎉.
        let replyID = String(try #require(reply["id"] as? Int))
        try bed.succeed(bob, ["react", "alice", replyID, "❤️"])
        try bed.succeed(bob, ["react", "alice", replyID, "--remove"])
        #expect(emoji(try message(bed, bob, "alice", "dinner at 8?")) == ["🎉"])

        // One sync later alice sees the final state.
        try bed.sync(alice)
        let answered = try message(bed, alice, "bob", "dinner at 8?")
        #expect(emoji(answered) == ["🎉"], "\(answered)")
        let reaction = try #require((answered["reactions"] as? [[String: Any]])?.first)
        #expect(reaction["address"] as? String == bob.address && reaction["you"] as? Bool == false)
        let replyHere = try message(bed, alice, "bob", "yes, see you")
        #expect((replyHere["replyTo"] as? [String: Any])?["id"] as? Int == questionID, "\(replyHere)")
        #expect(emoji(replyHere).isEmpty, "the removed reaction is gone: \(replyHere)")
        let shown = try bed.succeed(alice, ["history", "bob", "--no-receipts"]).stdout
        #expect(shown.contains("↳ replying to [\(questionID)] you: dinner at 8?") && shown.contains("🎉 bob"), "\(shown)")
        // The quote goes under the reply it belongs to (above it, it read as the line before's).
        let lines = shown.split(separator: "\n").map(String.init)
        let replyLine = try #require(lines.firstIndex { $0.contains("yes, see you") }, "\(shown)")
        #expect(lines.indices.contains(replyLine + 1) && lines[replyLine + 1].hasPrefix("      ↳ replying to [\(questionID)]"), "\(shown)")
        let found = try bed.succeed(alice, ["search", "see", "you", "--json"]).stdout
        #expect(found.contains("yes, see you"), "a reply's text is searchable: \(found)")

        // Alice reacts back while bob listens: one reaction event, with the message and its reactions.
        let listened = try bed.listen(bob, seconds: 8, while: { try bed.succeed(alice, ["react", "bob", String(questionID), "❤️"]) },
                                      until: "\"event\":\"reaction\"")
        let event = try #require(listened.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.first { $0["event"] as? String == "reaction" }, "\(listened)")
        #expect(event["id"] as? Int == Int(bobCopyID) && event["contact"] as? String == "alice", "\(event)")
        #expect(emoji(event) == ["❤️", "🎉"], "\(event)")
        try bed.sync(bob)
        #expect(emoji(try message(bed, bob, "alice", "dinner at 8?")) == ["❤️", "🎉"])
        let chat = try bed.hush(bob, ["chat", "alice"], stdin: "/unreact \(bobCopyID)\n/reply \(bobCopyID) from the chat\n")
        #expect(chat.status == 0 && !chat.crashed, "\(chat)")
        // The chat shows a reply with the message it quotes (bob's earlier reply, and this one).
        #expect(chat.stdout.contains("↳ “dinner at 8?” yes, see you") && chat.stdout.contains("↳ “dinner at 8?” from the chat"), "\(chat)")
        try bed.sync(alice)
        #expect(emoji(try message(bed, alice, "bob", "dinner at 8?")) == ["❤️"])
        let fromChat = try message(bed, alice, "bob", "from the chat")
        #expect((fromChat["replyTo"] as? [String: Any])?["id"] as? Int == questionID, "\(fromChat)")
    }

    @Test func groupReplyAndReactionsReachAMemberWhoWasOffline() throws {
        let bed = try Testbed("replies-group")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }
        try bed.succeed(alice, ["group", "create", "hikers", "bob", "carol"])
        for user in [bob, carol, bob, carol] { try bed.sync(user) }
        let sent = try bed.send(alice, to: "hikers", "summit at noon?")
        let sentID = try #require(sent["id"] as? Int)
        try bed.sync(bob)
        let bobCopyID = String(try #require(try message(bed, bob, "hikers", "summit at noon?")["id"] as? Int))

        // Carol and alice are offline while bob replies and reacts.
        try bed.succeed(bob, ["reply", "hikers", bobCopyID, "yes"])
        try bed.succeed(bob, ["react", "hikers", bobCopyID, "👍"])
        try bed.succeed(bob, ["react", "hikers", bobCopyID, "⛰️"])
        for user in [alice, carol] { try bed.sync(user) }
        let aliceView = try message(bed, alice, "hikers", "summit at noon?")
        #expect(emoji(aliceView) == ["⛰️"], "\(aliceView)")
        #expect((try message(bed, alice, "hikers", "yes")["replyTo"] as? [String: Any])?["id"] as? Int == sentID)
        #expect(emoji(try message(bed, carol, "hikers", "summit at noon?")) == ["⛰️"])
        let carolReply = try message(bed, carol, "hikers", "yes")
        #expect((carolReply["replyTo"] as? [String: Any])?["id"] != nil, "carol holds the quoted message: \(carolReply)")

        try bed.succeed(bob, ["react", "hikers", bobCopyID, "--remove"])
        try bed.succeed(carol, ["react", "hikers", String(try #require(try message(bed, carol, "hikers", "summit at noon?")["id"] as? Int)), "🎉"])
        for user in [alice, bob, carol] { try bed.sync(user) }
        #expect(emoji(try message(bed, alice, "hikers", "summit at noon?")) == ["🎉"])
        #expect(emoji(try message(bed, bob, "hikers", "summit at noon?")) == ["🎉"])
        let shown = try bed.succeed(alice, ["history", "hikers", "--no-receipts"]).stdout
        #expect(shown.contains("🎉 carol") && shown.contains("↳ replying to [\(sentID)] you: summit at noon?"), "\(shown)")
    }

    @Test func badRepliesAndReactionsSayWhyAndSendNothing() throws {
        let bed = try Testbed("replies-bad")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        try bed.acquaint(alice, bob)
        try bed.acquaint(alice, carol)
        let toCarol = try #require(try bed.send(alice, to: "carol", "for carol")["id"] as? Int)
        let sent = try #require(try bed.send(alice, to: "bob", "one")["id"] as? Int)
        let before = try bed.outbox(alice).count

        let missing = try bed.hush(alice, ["reply", "bob", "99999", "to nothing"])
        #expect(missing.status != 0 && !missing.crashed && missing.stderr.contains("no message with id 99999"), "\(missing)")
        // A message of another conversation is not this one's.
        let elsewhere = try bed.hush(alice, ["react", "bob", String(toCarol), "👍"])
        #expect(elsewhere.status != 0 && elsewhere.stderr.contains("no message with id \(toCarol)"), "\(elsewhere)")
        for bad in ["", "👍👍", "ab", String(repeating: "👍", count: 9)] {
            let refused = try bed.hush(alice, ["react", "bob", String(sent), bad])
            #expect(refused.status == 64 && refused.stderr.contains("one emoji"), "\(refused)")
        }
        let both = try bed.hush(alice, ["react", "bob", String(sent), "👍", "--remove"])
        #expect(both.status == 64, "\(both)")
        #expect(try bed.outbox(alice).count == before)
        try bed.sync(bob)
        let bobView = try bed.history(bob, with: "alice")
        #expect(bobView.bodies == ["hello", "hi", "one"], "nothing else arrived: \(bobView)")
        #expect(bobView.allSatisfy { ($0.raw["reactions"] as? [Any])?.isEmpty == true })
    }
}
