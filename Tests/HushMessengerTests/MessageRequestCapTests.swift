import Testing
import HushMessenger

/// Strangers who paid the relay's proof of work can write first as often as
/// they like: the list of message requests is bounded (issue 29, item 9).
@Suite struct MessageRequestCapTests {
    /// A stranger on `relay` who writes `text` to `bob` first.
    private static func stranger(_ index: Int, on relay: InMemoryRelay, writes text: String, to bob: Participant) async throws -> Participant {
        let stranger = try Participant("stranger-\(index)", relay: relay)
        try await stranger.messenger.register()
        try await stranger.messenger.addContact(name: "bob", address: bob.address)
        try await stranger.messenger.send(text: text, to: "bob")
        return stranger
    }

    @Test func aNewRequestTakesThePlaceOfTheOneThatWaitedLongest() async throws {
        let relay = InMemoryRelay()
        let bob = try Participant("bob", relay: relay, maxMessageRequests: 3)
        try await bob.messenger.register()
        var strangers: [Participant] = []
        for index in 0..<5 {
            strangers.append(try await Self.stranger(index, on: relay, writes: "hello from \(index)", to: bob))
            bob.clock.advance(milliseconds: 1_000)
            _ = try await bob.messenger.sync()
            #expect(try await bob.messenger.messageRequests().count == min(index + 1, 3))
        }
        var bodies = Set(try await bob.messenger.messageRequests().compactMap(\.lastMessage?.body))
        #expect(bodies == ["hello from 2", "hello from 3", "hello from 4"])
        #expect(try await bob.messenger.messageRequestsRemovedForRoom() == 2)

        // A request whose sender wrote again has waited less: the next newcomer
        // takes the place of the one that stayed silent longest.
        try await strangers[2].messenger.send(text: "still there?", to: "bob")
        bob.clock.advance(milliseconds: 1_000)
        _ = try await bob.messenger.sync()
        _ = try await Self.stranger(5, on: relay, writes: "hello from 5", to: bob)
        bob.clock.advance(milliseconds: 1_000)
        _ = try await bob.messenger.sync()
        bodies = Set(try await bob.messenger.messageRequests().compactMap(\.lastMessage?.body))
        #expect(bodies == ["still there?", "hello from 4", "hello from 5"])
        #expect(try await bob.messenger.messageRequestsRemovedForRoom() == 3)

        // Accepted contacts never count against the requests, and are never removed.
        let accepted = try #require(try await bob.messenger.messageRequests().first { $0.lastMessage?.body == "hello from 5" })
        try await bob.messenger.acceptRequest(name: accepted.contact.name, renameTo: "five")
        for index in 6..<9 {
            _ = try await Self.stranger(index, on: relay, writes: "hello from \(index)", to: bob)
            bob.clock.advance(milliseconds: 1_000)
            _ = try await bob.messenger.sync()
        }
        #expect(try await bob.messenger.contacts().contains { $0.name == "five" })
        #expect(try await bob.messenger.history(with: "five").map(\.body) == ["hello from 5"])
        #expect(try await bob.messenger.messageRequests().count == 3)
        _ = strangers
    }
}
