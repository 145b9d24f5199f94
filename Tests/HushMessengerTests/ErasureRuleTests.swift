import Foundation
import HushProtocol
import HushStore
import Testing
@testable import HushMessenger

/// Deletion and disappearing messages (docs/PROTOCOL.md §10.7): only the
/// author deletes, within the window; a deletion before its message is
/// remembered; a timer starts when a message is read, on both sides.
@Suite struct ErasureRuleTests {
    @Test func aDeletionForEveryoneErasesTheRecipientsCopyAndItsSearchEntry() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let sent = try await alice.messenger.send(text: "the plan is pineapples", to: "bob")
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.search("pineapples").count == 1)
        try await alice.messenger.delete(message: sent.id, forEveryone: true)
        _ = try await bob.messenger.sync()
        let copy = try #require(try await bob.messenger.history(with: "alice").first { $0.clientMessageId == sent.clientMessageId })
        #expect(copy.isErased && copy.body.isEmpty && copy.contentType == "deleted")
        #expect(try await bob.messenger.search("pineapples").isEmpty)
        #expect(try await alice.messenger.search("pineapples").isEmpty)
    }

    /// The text of an edit, kept by its sender to seal it again after a
    /// decryption error (§10.1), goes with the message it edits: once the
    /// message is deleted, nothing of the new text is left in the sender's
    /// store, in a conversation and in a group.
    @Test func anEditsTextKeptForResendingGoesWithItsMessage() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        try await alice.messenger.createGroup(name: "pair", members: ["bob"])
        _ = try await bob.messenger.sync()
        let store = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        func kept(_ text: String) throws -> Int {
            try ["sent_contents", "sent_group_contents"].reduce(0) { total, table in
                total + (try store.database.queryFirst("SELECT count(*) FROM \(table) WHERE instr(content, ?) > 0", [Array(text.utf8)]) {
                    try $0.get(0, as: Int64.self)
                }.map(Int.init) ?? 0)
            }
        }
        for (target, text) in [("bob", "meet at the quince tree"), ("pair", "meet at the medlar tree")] {
            let sent = try await alice.messenger.send(text: "meet at nine", to: target)
            _ = try await alice.messenger.edit(message: sent.id, text: text)
            #expect(try kept(text) == 1, "the edit is kept for resending (\(target))")
            try await alice.messenger.delete(message: sent.id, forEveryone: false)
            #expect(try kept(text) == 0, "the edit's text outlived its message (\(target))")
        }
    }

    @Test func aDeletionFromSomeoneWhoDidNotWriteTheMessageIsIgnored() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let sent = try await alice.messenger.send(text: "mine to keep", to: "bob")
        _ = try await bob.messenger.sync()
        // Bob names alice's own message in a forged deletion: only its author may.
        try await bob.messenger.seal(.deletion(of: try MessageID(hex: sent.clientMessageId)), to: "alice")
        await bob.messenger.flushOutbox()
        _ = try await alice.messenger.sync()
        let kept = try #require(try await alice.messenger.history(with: "bob").first { $0.id == sent.id })
        #expect(!kept.isErased && kept.body == "mine to keep")
        // And bob's client refuses to send one for a message he did not write.
        let copy = try #require(try await bob.messenger.history(with: "alice").last)
        await #expect(throws: MessengerError.notOwnMessage(copy.id)) {
            try await bob.messenger.delete(message: copy.id, forEveryone: true)
        }
    }

    @Test func aDeletionPastTheWindowIsRefusedOnSendAndIgnoredOnReceive() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let sent = try await alice.messenger.send(text: "old news", to: "bob")
        _ = try await bob.messenger.sync()
        alice.clock.advance(seconds: 48 * 3600 + 1)
        await #expect(throws: MessengerError.deletionWindowPassed(hours: 48)) {
            try await alice.messenger.delete(message: sent.id, forEveryone: true)
        }
        // A modified client sends it anyway: the receiver checks the author's two times.
        let contact = try #require(try await alice.messenger.contacts().first { $0.name == "bob" })
        let late = try Content(id: MessageID.random(), sentAt: UInt64(alice.clock.now()),
                               body: .deletion(of: try MessageID(hex: sent.clientMessageId))).encoded()
        try await alice.messenger.sealEncodedForTest(late, to: contact)
        await alice.messenger.flushOutbox()
        _ = try await bob.messenger.sync()
        let copy = try #require(try await bob.messenger.history(with: "alice").first { $0.clientMessageId == sent.clientMessageId })
        #expect(!copy.isErased && copy.body == "old news")
    }

    @Test func aDeletionThatArrivesBeforeItsMessageStoresTheMessageDeleted() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let contact = try #require(try await alice.messenger.contacts().first { $0.name == "bob" })
        let id = MessageID.random(), t = UInt64(alice.clock.now())
        try await alice.messenger.sealEncodedForTest(try Content(id: MessageID.random(), sentAt: t + 1, body: .deletion(of: id)).encoded(),
                                                     to: contact)
        try await alice.messenger.sealEncodedForTest(try Content(id: id, sentAt: t, body: .text("never seen")).encoded(), to: contact)
        await alice.messenger.flushOutbox()
        _ = try await bob.messenger.sync()
        let copy = try #require(try await bob.messenger.history(with: "alice").first { $0.clientMessageId == id.description })
        #expect(copy.isErased && copy.body.isEmpty)
        #expect(try await bob.messenger.search("seen").isEmpty)
    }

    @Test func aMessageUnderATimerDisappearsOnBothSidesOnceRead() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        try await alice.messenger.setDisappearingTimer(60, for: "bob")
        let sent = try await alice.messenger.send(text: "burn after reading", to: "bob")
        #expect(sent.expiresAfter == 60 && sent.expiresAt == nil)
        _ = try await bob.messenger.sync()
        let conversation = try #require(try await bob.messenger.history(with: "alice").last?.conversationId)
        #expect(try await bob.messenger.disappearingTimer(conversationID: conversation) == 60, "the change reached bob")
        let copy = try #require(try await bob.messenger.history(with: "alice").last)
        #expect(copy.expiresAfter == 60 && copy.expiresAt == nil, "not read: the timer has not started")
        bob.clock.advance(seconds: 3600)
        #expect(try await bob.messenger.sweepExpired() == 0)
        try await bob.messenger.markRead(contact: "alice")
        bob.clock.advance(seconds: 61)
        #expect(try await bob.messenger.sweepExpired() == 1)
        #expect(try await bob.messenger.history(with: "alice").contains { $0.clientMessageId == sent.clientMessageId } == false)
        #expect(try await bob.messenger.search("reading").isEmpty)
        // Alice was away while it ran out: the read receipt starts hers from when it was sent.
        alice.clock.advance(seconds: 3600 + 61)
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.history(with: "bob").contains { $0.id == sent.id } == false)
        #expect(try await alice.messenger.search("reading").isEmpty)
    }
}
