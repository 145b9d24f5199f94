@testable import HushStore
import Testing

/// `MessageRepository.search`: words the index holds go through FTS; a word
/// of symbols alone (an emoji), which the unicode61 tokenizer drops, is
/// looked for in the bodies as typed, alone or beside indexed words.
@Suite struct SearchTests {
    @Test func anEmojiIsFoundAloneAndBesideAWord() throws {
        let fixture = try StoreFixture()
        let ada = try fixture.conversation("ada")
        let bob = try fixture.conversation("bob")
        let party = try fixture.incoming(ada, serverId: 1, body: "we won 🎉 see you at the party", at: 1)
        let plain = try fixture.incoming(ada, serverId: 2, body: "the party is at eight", at: 2)
        let other = try fixture.incoming(bob, serverId: 3, body: "🎉🎉", at: 3)
        _ = try fixture.incoming(bob, serverId: 4, body: "👍", at: 4)

        let messages = fixture.store.messages
        #expect(try messages.search("🎉").map(\.message.id) == [other, party], "newest first, both conversations")
        #expect(try messages.search("🎉", conversationId: ada).map(\.message.id) == [party])
        #expect(try messages.search("party 🎉").map(\.message.id) == [party], "every word must occur")
        #expect(try messages.search("party").map(\.message.id) == [plain, party])
        #expect(try messages.search("🎈").isEmpty)
        #expect(try messages.search("🎉", limit: 1).map(\.message.id) == [other])
        #expect(try messages.search("🎉", conversationId: ada).first?.snippet == "we won [🎉] see you at the party")
    }

    @Test func aLongBodyIsCutAroundTheSymbol() {
        let body = String(repeating: "a", count: 60) + " ?! " + String(repeating: "b", count: 60)
        let snippet = MessageRepository.snippet(of: body, around: "?!", context: 5)
        #expect(snippet == "…aaaa [?!] bbbb…")
        #expect(MessageRepository.snippet(of: "?!", around: "?!") == "[?!]")
    }

    @Test func whichWordsTheIndexHolds() {
        #expect(MessageRepository.hasIndexedCharacter("party"))
        #expect(MessageRepository.hasIndexedCharacter("42"))
        #expect(MessageRepository.hasIndexedCharacter("😀x"))
        #expect(MessageRepository.hasIndexedCharacter("café"))
        #expect(!MessageRepository.hasIndexedCharacter("🎉"))
        #expect(!MessageRepository.hasIndexedCharacter("?!"))
    }
}

/// `MessageRepository.incomingCount(after:excluding:)`, which `hush sync`
/// reports as new messages: incoming rows after a point, without the
/// notices the client writes itself.
@Suite struct IncomingCountTests {
    @Test func onlyIncomingRowsAfterThePointAndNoNoticesCount() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("ada")
        _ = try fixture.incoming(chat, serverId: 1, body: "before", at: 1)
        let newest = try fixture.store.messages.newestId()
        _ = try fixture.incoming(chat, serverId: 2, body: "one", at: 2)
        _ = try fixture.outgoingPending(chat, body: "mine", at: 3, requestId: "r")
        _ = try fixture.store.messages.insert(NewMessage(conversationId: chat, clientMessageId: "notice", direction: .incoming, sender: "ada",
                                                         body: "ada linked a device", contentType: "device-list", status: .delivered, createdAt: 4))
        _ = try fixture.incoming(chat, serverId: 3, body: "two", at: 5)
        #expect(try fixture.store.messages.incomingCount(after: newest) == 3)
        #expect(try fixture.store.messages.incomingCount(after: newest, excluding: ["device-list", "disappearing-timer"]) == 2)
        #expect(try fixture.store.messages.incomingCount(after: try fixture.store.messages.newestId()) == 0)
    }
}
