import Foundation
import HushMessenger
import HushStore
import Testing

/// Display names (docs/PROTOCOL.md §10.4): sealed to accepted contacts before
/// anything else they are sent, once per change; kept on the receiving side
/// beside the name the user chose, a stranger's too.
@Suite struct ProfileNameTests {
    @Test func aStrangersChosenNameShowsWithTheirRequest() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.pair()
        _ = try await alice.messenger.setDisplayName("  Alice Liddell \n")
        #expect(try await alice.messenger.displayName() == "Alice Liddell")
        try await alice.messenger.send(text: "hello", to: "bob")
        _ = try await bob.messenger.sync()
        let request = try #require(try await bob.messenger.messageRequests().first)
        #expect(request.contact.profileName == "Alice Liddell")
        #expect(request.contact.name.hasPrefix("unknown-"), "the chosen name never replaces the one the user gives")
        // The profile is not a message in the history.
        #expect(request.messageCount == 1)
    }

    @Test func aChangeReachesEveryAcceptedContactOnceAndNothingReachesAStranger() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let carol = try Participant("carol", relay: relay)
        try await carol.messenger.register()
        // Carol wrote to alice, who has not accepted her.
        try await carol.messenger.addContact(name: "alice", address: alice.address)
        try await carol.messenger.send(text: "hi alice", to: "alice")
        _ = try await alice.messenger.sync()

        let queued = try await alice.messenger.setDisplayName("Alice")
        #expect(queued == 1, "bob only: carol is a request")
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.contacts().first { $0.name == "alice" }?.profileName == "Alice")
        _ = try await carol.messenger.sync()
        #expect(try await carol.messenger.contacts().first?.profileName == nil)

        // The same name again sends nothing; a new one is sent.
        let before = relay.stored(for: bob.identity.publicKey).count
        _ = try await alice.messenger.setDisplayName("Alice")
        #expect(relay.stored(for: bob.identity.publicKey).count == before)
        _ = try await alice.messenger.setDisplayName("Alice L.")
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.contacts().first { $0.name == "alice" }?.profileName == "Alice L.")

        // Accepting carol hands her the name.
        let request = try #require(try await alice.messenger.messageRequests().first)
        _ = try await alice.messenger.acceptRequest(name: request.contact.name, renameTo: "carol")
        _ = try await carol.messenger.sync()
        #expect(try await carol.messenger.contacts().first?.profileName == "Alice L.")
    }

    @Test func aMemberAGroupIntroducedGetsTheNameAndACountIsOfWhatWasSent() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let carol = try Participant("carol", relay: relay)
        try await carol.messenger.register()
        try await alice.messenger.addContact(name: "carol", address: carol.address)
        try await alice.messenger.send(text: "hi carol", to: "carol")
        _ = try await carol.messenger.sync()
        try await carol.messenger.addContact(name: "alice", address: alice.address)
        _ = try await alice.messenger.sync()
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        _ = try await bob.messenger.sync()
        let introduced = try #require(try await bob.messenger.contacts().first { $0.address == carol.address })
        #expect(introduced.standing == .accepted)
        // Alice, and carol (bob's sender key went to her, so a session exists).
        let first = try await bob.messenger.setDisplayName("Bob")
        #expect(first == 2, "queued for \(first)")
        #expect(try await bob.messenger.setDisplayName("Bob") == 0, "nothing new to send, and it says so")
        _ = try await carol.messenger.sync()
        #expect(try await carol.messenger.contacts().first { $0.address == bob.address }?.profileName == "Bob")
    }

    @Test func aNameTheProfileCannotCarryIsRefused() async throws {
        let relay = InMemoryRelay()
        let (alice, _) = try await relay.pair()
        await #expect(throws: MessengerError.invalidDisplayName(limit: 64)) { _ = try await alice.messenger.setDisplayName("   ") }
        await #expect(throws: MessengerError.invalidDisplayName(limit: 64)) {
            _ = try await alice.messenger.setDisplayName(String(repeating: "é", count: 33))
        }
        #expect(try await alice.messenger.displayName() == nil)
    }
}
