import Foundation
import HushProtocol
import HushStore
import Testing
@testable import HushMessenger

/// The rules for edits (docs/PROTOCOL.md §10.6): only the author's own text,
/// within 48 hours by the author's clock, at most 20 times; the newest by the
/// author's clock is shown, every version kept, and search finds only the
/// text shown. A forged edit changes nothing.
@Suite struct EditRuleTests {
    @Test func anEditIsShownKeptAndSearchedByItsNewText() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let sent = try await alice.messenger.send(text: "dinner at seven", to: "bob")
        _ = try await bob.messenger.sync()
        alice.clock.advance(seconds: 60)
        let edited = try await alice.messenger.edit(message: sent.id, text: "dinner at eight")
        #expect(edited.body == "dinner at eight" && edited.editedAt == alice.clock.now())
        #expect(try await alice.messenger.search("seven", limit: 10).isEmpty)

        _ = try await bob.messenger.sync()
        let copy = try #require(try await bob.messenger.history(with: "alice").last)
        #expect(copy.body == "dinner at eight" && copy.editedAt != nil)
        #expect(try await bob.messenger.search("seven", limit: 10).isEmpty, "the old text is not found")
        #expect(try await bob.messenger.search("eight", limit: 10).map(\.message.id) == [copy.id])
        #expect(try await bob.messenger.versions(ofMessage: copy.id).map(\.body) == ["dinner at seven", "dinner at eight"])
    }

    @Test func aForgedEditOfSomeoneElsesMessageChangesNothing() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let fromAlice = try await alice.messenger.send(text: "the code is 1234", to: "bob")
        _ = try await bob.messenger.sync()
        let fromBob = try await bob.messenger.send(text: "noted", to: "alice")
        _ = try await alice.messenger.sync()
        // Alice edits bob's message to her (not hers), and an id nobody sent.
        let theirs = try Content(id: MessageID.random(), sentAt: UInt64(alice.clock.now()),
                                 body: .edit(of: try MessageID(hex: fromBob.clientMessageId), text: "forged")).encoded()
        let unknown = try Content(id: MessageID.random(), sentAt: UInt64(alice.clock.now()),
                                  body: .edit(of: MessageID.random(), text: "forged")).encoded()
        let aliceToBob = try #require(try await alice.messenger.contacts().first { $0.name == "bob" })
        try await alice.messenger.sealEncodedForTest(theirs, to: aliceToBob)
        try await alice.messenger.sealEncodedForTest(unknown, to: aliceToBob)
        await alice.messenger.flushOutbox()
        let report = try await bob.messenger.sync()
        #expect(report.quarantined == 0, "\(report)")
        let bobsOwn = try #require(try await bob.messenger.message(id: fromBob.id))
        #expect(bobsOwn.body == "noted" && bobsOwn.editedAt == nil)
        #expect(try await bob.messenger.versions(ofMessage: fromBob.id).isEmpty)

        // Bob cannot edit alice's message from his side either: refused before anything is sealed.
        let bobCopy = try #require(try await bob.messenger.history(with: "alice").first { $0.clientMessageId == fromAlice.clientMessageId })
        let queued = try await bob.messenger.outbox().count
        await #expect(throws: MessengerError.notEditable(EditRule.Refusal.notTheAuthor.description)) {
            try await bob.messenger.edit(message: bobCopy.id, text: "forged")
        }
        #expect(try await bob.messenger.outbox().count == queued)
    }

    @Test func theWindowAndTheBoundHoldOnBothSides() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let sent = try await alice.messenger.send(text: "v0", to: "bob")
        _ = try await bob.messenger.sync()
        let target = try MessageID(hex: sent.clientMessageId)
        let bobSide = try #require(try await alice.messenger.contacts().first { $0.name == "bob" })
        // A receiver ignores an edit written after the window (the author's clock), whenever it arrives.
        let late = try Content(id: MessageID.random(), sentAt: UInt64(sent.createdAt) + ContentLimits.editWindow + 1,
                               body: .edit(of: target, text: "too late")).encoded()
        try await alice.messenger.sealEncodedForTest(late, to: bobSide)
        await alice.messenger.flushOutbox()
        _ = try await bob.messenger.sync()
        let copyID = try #require(try await bob.messenger.history(with: "alice").last?.id)
        #expect(try await bob.messenger.message(id: copyID)?.body == "v0")

        // Edits out of order: the newest by the author's clock is shown, the older kept.
        let t = UInt64(sent.createdAt)
        for (offset, text) in [(20, "v2"), (10, "v1")] {
            let edit = try Content(id: MessageID.random(), sentAt: t + UInt64(offset), body: .edit(of: target, text: text)).encoded()
            try await alice.messenger.sealEncodedForTest(edit, to: bobSide)
        }
        await alice.messenger.flushOutbox()
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.message(id: copyID)?.body == "v2")
        #expect(try await bob.messenger.versions(ofMessage: copyID).map(\.body) == ["v0", "v1", "v2"])

        // The bound: the sender refuses a 21st edit of its own, and a receiver
        // ignores edits past 20 (bob already has two: v1 and v2).
        for n in 1...ContentLimits.maxEditsPerMessage {
            alice.clock.advance(seconds: 1)
            _ = try await alice.messenger.edit(message: sent.id, text: "e\(n)")
        }
        await #expect(throws: MessengerError.notEditable(EditRule.Refusal.tooManyEdits.description)) {
            try await alice.messenger.edit(message: sent.id, text: "one more")
        }
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.message(id: copyID)?.body == "e\(ContentLimits.maxEditsPerMessage - 2)")
        #expect(try await bob.messenger.versions(ofMessage: copyID).count == ContentLimits.maxEditsPerMessage + 1)

        // The sender's window: 48 hours after sending, its own edit is refused.
        let fresh = try await alice.messenger.send(text: "later", to: "bob")
        alice.clock.advance(milliseconds: Int64(ContentLimits.editWindow) + 1)
        await #expect(throws: MessengerError.notEditable(EditRule.Refusal.windowPassed.description)) {
            try await alice.messenger.edit(message: fresh.id, text: "too late")
        }
    }

    @Test func inAGroupOnlyTheMemberWhoWroteItEditsIt() async throws {
        let relay = InMemoryRelay()
        var people: [String: Participant] = [:]
        for name in ["alice", "bob", "carol"] {
            let person = try Participant(name, relay: relay)
            try await person.messenger.register()
            people[name] = person
        }
        for name in ["bob", "carol"] {
            try await people["alice"]!.messenger.addContact(name: name, address: people[name]!.address)
            try await people[name]!.messenger.addContact(name: "alice", address: people["alice"]!.address)
        }
        func syncAll() async throws {
            for _ in 0..<3 { for name in ["alice", "bob", "carol"] { _ = try await people[name]!.messenger.sync() } }
        }
        try await syncAll()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll()
        let sent = try await bob.send(text: "standup at 10", to: "team")
        try await syncAll()
        // Carol, a member, forges an edit of bob's message to the group.
        try await carol.sealToGroupForTest(.edit(of: try MessageID(hex: sent.clientMessageId), text: "standup cancelled"), group: "team")
        await carol.flushOutbox()
        try await syncAll()
        let atAlice = try #require(try await alice.history(with: "team").first { $0.clientMessageId == sent.clientMessageId })
        #expect(atAlice.body == "standup at 10" && atAlice.editedAt == nil)

        // Bob's own edit reaches both.
        _ = try await bob.edit(message: sent.id, text: "standup at 11")
        try await syncAll()
        for member in [alice, carol] {
            let copy = try #require(try await member.history(with: "team").first { $0.clientMessageId == sent.clientMessageId })
            #expect(copy.body == "standup at 11" && copy.editedAt != nil)
        }
    }
}

extension Messenger {
    /// Seals `body` to the group as control content, as a member's client would.
    func sealToGroupForTest(_ body: ContentBody, group: String) throws {
        try store.write { _ in _ = try sealer.sealControl(body, toGroup: group) }
    }
}
