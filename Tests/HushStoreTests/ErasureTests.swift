import HushCrypto
import HushDatabase
import HushStore
import Testing

/// Schema version 25 (docs/PROTOCOL.md §10.7): `erase` is the one place a
/// deletion and an expiry take a message out: body and search entry,
/// attachment row, reactions, quote and edit history go; the row stays as a tombstone; an
/// expired one leaves history and the conversation's summary.
@Suite struct ErasureTests {
    @Test func erasingRemovesTheTextTheSearchEntryTheFileRowTheReactionsAndTheEditHistory() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("ada")
        let message = try fixture.incoming(chat, serverId: 1, body: "pineapple plans", at: 1)
        let attachment = try fixture.store.attachments.insert(
            NewAttachment(messageId: message, direction: .incoming, state: .available, fileName: "a.bin", mediaType: "",
                          size: 10, key: SecureBytes(randomCount: 32), digest: [UInt8](repeating: 1, count: 32),
                          blobId: String(repeating: "a", count: 64)), at: 1)
        try fixture.store.reactions.record(messageId: message, reactor: "ada", emoji: "👍", sentAt: 2)
        #expect(try fixture.store.edits.record(messageId: message, editId: "edit-1", body: "pineapple plans, revised", sentAt: 3,
                                               limit: 20) == .applied)
        #expect(try fixture.store.edits.versions(messageId: message).count == 2)
        #expect(try fixture.store.messages.search("pineapple").count == 1)

        #expect(try fixture.store.messages.erase(messageId: message, as: .deleted, at: 5) == [attachment])
        let tombstone = try #require(try fixture.store.messages.message(id: message))
        #expect(tombstone.isErased && tombstone.body.isEmpty && tombstone.contentType == "deleted" && tombstone.readAt == 5)
        #expect(try fixture.store.edits.versions(messageId: message).isEmpty, "no earlier version stays readable")
        #expect(tombstone.editedAt == nil)
        #expect(try fixture.store.messages.search("pineapple").isEmpty)
        #expect(try fixture.store.attachments.allIds().isEmpty)
        #expect(try fixture.store.reactions.reactions(messageIds: [message]).isEmpty)
        #expect(try fixture.store.messages.history(conversationId: chat).map(\.id) == [message], "a deletion shows as deleted")
        #expect(try fixture.store.messages.erase(messageId: message, as: .expired, at: 6) == nil, "erased once")
        // A late copy of it (same client message id) stays out.
        #expect(try fixture.store.messages.message(id: message)?.contentType == "deleted")
        #expect(try fixture.store.doctor().healthy, "the search index still matches the messages")
    }

    @Test func anExpiredMessageLeavesHistoryAndTheSummaryWhenItsTimerRunsOut() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("bo")
        let first = try fixture.incoming(chat, serverId: 1, body: "stays", at: 1)
        let id = try fixture.store.messages.insert(NewMessage(conversationId: chat, serverId: 2, clientMessageId: "timed",
                                                              direction: .incoming, sender: "addr-bo", body: "goes",
                                                              status: .delivered, createdAt: 2, expiresAfter: 60)).id
        #expect(try fixture.store.messages.expired(at: 1_000_000).isEmpty, "not read: not started")
        try fixture.store.messages.markRead(upTo: id, in: chat, at: 10_000)
        #expect(try fixture.store.messages.message(id: id)?.expiresAt == 70_000)
        #expect(try fixture.store.messages.expired(at: 69_999).isEmpty)
        #expect(try fixture.store.messages.expired(at: 70_000) == [id])
        try fixture.store.messages.erase(messageId: id, as: .expired, at: 70_000)
        #expect(try fixture.store.messages.history(conversationId: chat).map(\.id) == [first])
        #expect(try fixture.store.conversations.list().first { $0.id == chat }?.lastMessage?.id == first)
        #expect(try fixture.store.messages.expired(at: 80_000).isEmpty)
    }
}
