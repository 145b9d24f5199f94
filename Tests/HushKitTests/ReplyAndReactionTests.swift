import Foundation
import HushKit
import Testing

/// Replies and reactions (docs/PROTOCOL.md §10.5) through HushKit's public
/// API only, on a real relay process.
@Suite struct HushKitReplyAndReactionTests {
    @Test func aReplyQuotesAndReactionsAreSetChangedAndTakenAway() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, aliceForBob) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let room = try await alice.room(with: bobForAlice)
        let question = try await room.send("dinner at 8?")
        #expect(question.replyTo == nil && question.reactions.isEmpty)

        #expect(try await App.sync(bob) { try await bob.conversations().first?.unreadCount == 1 })
        let bobRoom = try await bob.room(with: aliceForBob)
        let received = try #require(try await bobRoom.history().messages.first)
        let reply = try await bobRoom.reply(to: received.id, text: "yes, see you")
        #expect(reply.message.replyTo?.message == received.id && reply.message.replyTo?.clientMessageID == received.clientMessageID)
        #expect(reply.message.text == "yes, see you" && reply.message.status == .sent)

        // Alice has the quoted message: the reply names it by her own id.
        let aliceEvents = alice.events()
        #expect(try await App.sync(alice) { try await room.history().messages.count == 2 })
        let replyHere = try #require(try await room.history().messages.last)
        #expect(replyHere.replyTo?.message == question.id && replyHere.replyTo?.clientMessageID == question.clientMessageID)
        #expect(try await alice.search("see you").map(\.message.id) == [replyHere.id], "a reply's text is searchable")

        // Set, changed, taken away: one reaction per person, the latest.
        try await bobRoom.react(to: received.id, with: "👍")
        #expect(try await bob.message(received.id)?.reactions.map(\.emoji) == ["👍"])
        #expect(try await bob.message(received.id)?.reactions.first?.isYou == true)
        #expect(try await App.sync(alice) { try await alice.message(question.id)?.reactions.map(\.emoji) == ["👍"] })
        let reaction = try #require(try await alice.message(question.id)?.reactions.first)
        #expect(reaction.reactorAddress == bob.address && reaction.contact == bobForAlice && !reaction.isYou)
        #expect(await App.event(in: aliceEvents) { $0 == .reactionChanged(question.id, in: room.id) } != nil)

        try await bobRoom.react(to: received.id, with: "👩‍👩‍👧")
        try await room.react(to: question.id, with: "❤️")
        #expect(try await App.sync(alice) { try await alice.message(question.id)?.reactions.map(\.emoji).sorted() == ["❤️", "👩‍👩‍👧"] })
        try await bobRoom.react(to: received.id, with: nil)
        #expect(try await App.sync(alice) { try await alice.message(question.id)?.reactions.map(\.emoji) == ["❤️"] })
        #expect(try await App.sync(bob) {
            try await bob.message(received.id)?.reactions.map { "\($0.emoji) \($0.isYou)" } == ["❤️ false"]
        })
    }

    @Test func badRepliesAndReactionsAreRefusedAndSendNothing() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let room = try await alice.room(with: bobForAlice)
        let sent = try await room.send("one")
        let queuedBefore = try await alice.queuedMessages().count

        let missing = await App.error { _ = try await room.reply(to: MessageID(rawValue: 9_999), text: "to nothing") }
        #expect(missing?.kind == .notFound && missing?.subject == .message(MessageID(rawValue: 9_999)), "\(String(describing: missing))")
        #expect(await App.errorKind { try await room.react(to: MessageID(rawValue: 9_999), with: "👍") } == .notFound)
        for emoji in ["", "👍👍", "ab", String(repeating: "👍", count: 9), "\u{202E}", "\n"] {
            #expect(!Reaction.isAcceptableEmoji(emoji), "\(emoji.unicodeScalars.map(\.value))")
            #expect(await App.errorKind { try await room.react(to: sent.id, with: emoji) } == .invalidInput)
        }
        for emoji in ["👍", "🇫🇷", "👍🏽", "👩‍👩‍👧", "❤️"] { #expect(Reaction.isAcceptableEmoji(emoji), "\(emoji)") }
        #expect(try await room.history().messages.count == 1, "nothing was stored")
        #expect(try await alice.queuedMessages().count == queuedBefore)
        #expect(try await alice.message(sent.id)?.reactions.isEmpty == true)
    }

    @Test func inAGroupRepliesAndReactionsReachEveryMember() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay)
        let bob = try await App.account("bob", relay: relay), carol = try await App.account("carol", relay: relay)
        defer { alice.close(); bob.close(); carol.close() }
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let (carolForAlice, _) = try await App.introduce(alice, carol, as: ("alice", "carol"))
        let group = try await alice.createGroup(name: "team", members: [bobForAlice, carolForAlice])
        let room = try await alice.room(group.id)
        let sent = try await room.send("hi team")
        #expect(try await App.sync(bob) {
            guard let groupID = try await bob.groups().first?.id else { return false }
            return try await bob.room(groupID).history().messages.count == 1
        })
        let bobRoom = try await bob.room(try #require(try await bob.groups().first).id)
        let bobCopy = try #require(try await bobRoom.history().messages.first)
        _ = try await bobRoom.reply(to: bobCopy.id, text: "hello alice")
        try await bobRoom.react(to: bobCopy.id, with: "🎉")

        #expect(try await App.sync(alice) { try await alice.message(sent.id)?.reactions.map(\.emoji) == ["🎉"] })
        let replyHere = try #require(try await room.history().messages.last)
        #expect(replyHere.text == "hello alice" && replyHere.replyTo?.message == sent.id)
        // Carol sees bob's reaction to alice's message too.
        #expect(try await App.sync(carol) {
            guard let groupID = try await carol.groups().first?.id,
                  let first = try await carol.room(groupID).history().messages.first else { return false }
            return first.reactions.map(\.reactorAddress) == [bob.address]
        })
    }
}
