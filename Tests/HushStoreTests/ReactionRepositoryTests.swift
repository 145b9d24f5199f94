import HushDatabase
import HushStore
import Testing

/// Schema version 21: a reply keeps the id it quotes and is searchable by its
/// own text; reactions are one per reactor per message, the latest by the
/// reactor's clock, and go with their message.
@Suite struct ReactionRepositoryTests {
    @Test func aReplyKeepsItsQuoteAndIsFoundBySearch() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("ada")
        let id = try fixture.store.messages.insert(NewMessage(conversationId: chat, serverId: 1, clientMessageId: "reply-1",
                                                              direction: .incoming, sender: "addr-ada", body: "count me in",
                                                              status: .delivered, createdAt: 1, replyTo: "00112233445566778899aabbccddeeff")).id
        #expect(try fixture.store.messages.message(id: id)?.replyTo == "00112233445566778899aabbccddeeff")
        #expect(try fixture.store.messages.search("count").map(\.message.id) == [id])
        let plain = try fixture.incoming(chat, serverId: 2, body: "no quote", at: 2)
        #expect(try fixture.store.messages.message(id: plain)?.replyTo == nil)
    }

    @Test func oneReactionPerReactorTheLatestWinsAndARemovalIsKept() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("bo")
        let message = try fixture.incoming(chat, serverId: 1, body: "vote", at: 1)
        let reactions = fixture.store.reactions
        #expect(try reactions.record(messageId: message, reactor: "bo", emoji: "👍", sentAt: 10))
        #expect(try reactions.record(messageId: message, reactor: "cy", emoji: "🎉", sentAt: 11))
        #expect(try reactions.record(messageId: message, reactor: "bo", emoji: "👎", sentAt: 12))
        #expect(try reactions.reactions(messageIds: [message])[message]?.map(\.emoji) == ["🎉", "👎"], "oldest first")
        #expect(try !reactions.record(messageId: message, reactor: "bo", emoji: "❤️", sentAt: 11), "older than the stored one")
        #expect(try reactions.record(messageId: message, reactor: "bo", emoji: nil, sentAt: 13))
        #expect(try !reactions.record(messageId: message, reactor: "bo", emoji: "👍", sentAt: 12), "the removal stays the latest")
        #expect(try reactions.reactions(messageIds: [message])[message]?.map(\.reactor) == ["cy"])

        try fixture.store.conversations.delete(chat)
        #expect(try reactions.reactions(messageIds: [message]).isEmpty)
        let left = try fixture.store.database.queryFirst("SELECT count(*) FROM reactions") { try $0.get(0, as: Int64.self) }
        #expect(left == 0, "reactions go with their message")
    }
}
