import Foundation
import HushProtocol
import HushStore
import Testing
@testable import HushMessenger

/// The receiver's rules for reactions (docs/PROTOCOL.md §10.5): only to a
/// message of the conversation the reaction came in, one per reactor, the
/// latest by the reactor's clock.
@Suite struct ReactionRuleTests {
    @Test func aReactionToAMessageOfAnotherConversationIsIgnored() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let mallory = try Participant("mallory", relay: relay)
        try await mallory.messenger.register()
        try await mallory.messenger.addContact(name: "alice", address: alice.address)
        try await mallory.messenger.send(text: "hi alice", to: "alice")
        _ = try await alice.messenger.sync()
        try await alice.messenger.acceptRequest(name: try #require(try await alice.messenger.messageRequests().first?.contact.name),
                                                renameTo: "mallory")
        let toBob = try await alice.messenger.send(text: "for bob only", to: "bob")
        let target = try MessageID(hex: toBob.clientMessageId)
        // Mallory knows the id (leaked) and reacts to it in her own conversation with alice.
        try await mallory.messenger.sync()
        try await mallory.messenger.seal(.reaction(to: target, emoji: "💩"), to: "alice")
        // And to an id nobody ever sent.
        try await mallory.messenger.seal(.reaction(to: MessageID.random(), emoji: "💩"), to: "alice")
        await mallory.messenger.flushOutbox()
        let report = try await alice.messenger.sync()
        #expect(report.quarantined == 0, "\(report)")
        #expect(try await alice.messenger.decorations(of: [toBob]).reactions.isEmpty)

        _ = try await bob.messenger.sync()
        let bobCopy = try #require(try await bob.messenger.history(with: "alice").last)
        try await bob.messenger.react(toMessage: bobCopy.id, emoji: "👍")
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.decorations(of: [toBob]).reactions[toBob.id]?.map(\.emoji) == ["👍"])
    }

    @Test func anOlderReactionArrivingLaterNeitherReplacesNorRevivesANewerOne() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let sent = try await alice.messenger.send(text: "vote", to: "bob")
        let target = try MessageID(hex: sent.clientMessageId)
        _ = try await bob.messenger.sync()
        let contact = try #require(try await bob.messenger.contacts().first { $0.name == "alice" })
        // Bob's reactions as his clock had them: 👍 at t, removed at t+2; the
        // envelope carrying 👍 reaches alice last (a resend, say).
        let t = UInt64(bob.clock.now())
        let older = try Content(id: MessageID.random(), sentAt: t, body: .reaction(to: target, emoji: "👍")).encoded()
        let newer = try Content(id: MessageID.random(), sentAt: t + 2, body: .reaction(to: target, emoji: nil)).encoded()
        let middle = try Content(id: MessageID.random(), sentAt: t + 1, body: .reaction(to: target, emoji: "👎")).encoded()
        try await bob.messenger.sealEncodedForTest(newer, to: contact)
        try await bob.messenger.sealEncodedForTest(middle, to: contact)
        try await bob.messenger.sealEncodedForTest(older, to: contact)
        await bob.messenger.flushOutbox()
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.decorations(of: [sent]).reactions.isEmpty, "the removal is the latest")

        let latest = try Content(id: MessageID.random(), sentAt: t + 3, body: .reaction(to: target, emoji: "🎉")).encoded()
        try await bob.messenger.sealEncodedForTest(latest, to: contact)
        await bob.messenger.flushOutbox()
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.decorations(of: [sent]).reactions[sent.id]?.map(\.emoji) == ["🎉"])
    }
}

extension Messenger {
    /// Seals an encoded content as it stands (its own id and time) to `contact`.
    func sealEncodedForTest(_ content: [UInt8], to contact: Contact) throws {
        try store.write { _ in try sealer.seal(encodedContent: content, to: contact) }
    }
}
