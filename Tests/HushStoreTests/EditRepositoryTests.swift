import HushDatabase
import HushStore
import Testing

/// Schema version 22: an edit rewrites the body shown and its search entry in
/// one transaction, keeps every version (the original first) with its time,
/// is stored once by its id, is bounded, and goes with its message.
@Suite struct EditRepositoryTests {
    @Test func anEditReplacesTheSearchEntryAndKeepsTheVersions() throws {
        let fixture = try StoreFixture()
        let chat = try fixture.conversation("ada")
        let message = try fixture.incoming(chat, serverId: 1, body: "lunch on tuesday", at: 1)
        let edits = fixture.store.edits
        #expect(try edits.record(messageId: message, editId: "e1", body: "lunch on wednesday", sentAt: 5, limit: 20) == .applied)
        #expect(try fixture.store.messages.search("tuesday").isEmpty, "the old text is not found")
        #expect(try fixture.store.messages.search("wednesday").map(\.message.id) == [message])
        #expect(try fixture.store.messages.message(id: message)?.editedAt == 5)
        #expect(try edits.record(messageId: message, editId: "e1", body: "lunch on wednesday", sentAt: 5, limit: 20) == .duplicate)
        // An older edit arriving later is kept in the history, not shown.
        #expect(try edits.record(messageId: message, editId: "e0", body: "lunch on monday", sentAt: 3, limit: 20) == .superseded)
        #expect(try fixture.store.messages.message(id: message)?.body == "lunch on wednesday")
        #expect(try fixture.store.messages.search("monday").isEmpty)
        #expect(try edits.versions(messageId: message).map(\.body) == ["lunch on tuesday", "lunch on monday", "lunch on wednesday"])
        #expect(try edits.versions(messageId: message).map(\.editId) == [nil, "e0", "e1"])
        #expect(try edits.count(messageId: message) == 2)
        #expect(try edits.record(messageId: message, editId: "e2", body: "no", sentAt: 9, limit: 2) == .limitReached)

        try fixture.store.conversations.delete(chat)
        let left = try fixture.store.database.queryFirst("SELECT count(*) FROM message_versions") { try $0.get(0, as: Int64.self) }
        #expect(left == 0, "versions go with their message")
    }
}
