import Foundation
import HushProtocol
import HushStore
import Testing
@testable import HushMessenger

/// What a peer's envelope may change is limited to that peer: receipts
/// confirm only messages sent to their sender, the ephemeral path carries
/// only typing, and a pending identity change does not cost incoming messages.
@Suite struct PeerScopeTests {
    @Test func aReceiptConfirmsOnlyMessagesSentToItsSender() async throws {
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
        // Mallory learns the id (it is no secret from the relay's point of view
        // once bob leaks it, say) and sends a read receipt naming it.
        try await mallory.messenger.sync()
        try await mallory.messenger.seal(.readReceipt([try MessageID(hex: toBob.clientMessageId)]), to: "alice")
        await mallory.messenger.flushOutbox()
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.history(with: "bob").last?.status == .sent)

        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.markRead(contact: "alice") >= 1)
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.history(with: "bob").last?.status == .read)
    }

    @Test func theEphemeralPathCarriesOnlyTyping() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        try await alice.messenger.seal(.text("smuggled as ephemeral"), to: "bob")
        let envelope = try #require(try await alice.messenger.outbox().last?.payload)
        await bob.messenger.receiveEphemeral(envelope)
        #expect(try await bob.messenger.history(with: "alice").map(\.body) == ["hello"])
    }

    /// Each typing indicator takes a message number, and one the contact
    /// never gets (no socket open) is a gap it must bridge. Hours of `hush
    /// chat` towards an offline contact sent more than the protocol's bound
    /// (1,000), and every later message of that direction was refused.
    @Test func typingIndicatorsNobodyReceivedNeverMakeLaterMessagesUndecryptable() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        #expect(try await alice.messenger.deliveryCredentialKnown(for: "bob"))
        for _ in 0..<1_100 { try await alice.messenger.sendTyping(true, to: "bob") }
        try await alice.messenger.send(text: "after a long silence", to: "bob")
        let report = try await bob.messenger.sync()
        #expect(report.quarantined == 0 && report.resendRequested == 0, "\(report)")
        #expect(try await bob.messenger.history(with: "alice").map(\.body).contains("after a long silence"))
    }

    @Test func messagesArrivingWhileAnIdentityChangeWaitsAreStored() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let other = try Participant("other", relay: relay)
        try await other.messenger.register()
        // Alice is told a different key for "bob" (a relay in the middle, or a
        // reinstall): sending to bob stops until she decides.
        await #expect(throws: MessengerError.identityChanged(name: "bob")) {
            try await alice.messenger.addContact(name: "bob", address: other.address)
        }
        try await bob.messenger.send(text: "still me, on the old session", to: "alice")
        let report = try await alice.messenger.sync()
        #expect(report.quarantined == 0, "\(report)")
        #expect(try await alice.messenger.history(with: "bob").map(\.body).contains("still me, on the old session"))
    }
}
