import Foundation
import HushKit
import Testing

/// Edits (docs/PROTOCOL.md §10.6) through HushKit's public API only, on a
/// real relay process.
@Suite struct HushKitEditTests {
    @Test func anEditReachesTheOtherSideWithItsHistoryAndAnEvent() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, aliceForBob) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let room = try await alice.room(with: bobForAlice)
        let sent = try await room.send("dinner at eight")
        #expect(sent.editedAt == nil && !sent.isEdited)
        #expect(try await App.sync(bob) { try await bob.conversations().first?.unreadCount == 1 })
        let bobRoom = try await bob.room(with: aliceForBob)
        let received = try #require(try await bobRoom.history().messages.first)

        let bobEvents = bob.events()
        let edited = try await room.edit(sent.id, text: "dinner at nine")
        #expect(edited.text == "dinner at nine" && edited.isEdited && edited.id == sent.id)
        #expect(try await App.sync(bob) { try await bob.message(received.id)?.text == "dinner at nine" })
        #expect(try await bob.message(received.id)?.editedAt != nil)
        #expect(await App.event(in: bobEvents) { $0 == .messageEdited(received.id, in: bobRoom.id) } != nil)
        let versions = try await bobRoom.editHistory(of: received.id)
        #expect(versions.map(\.text) == ["dinner at eight", "dinner at nine"] && versions.map(\.isOriginal) == [true, false])
        #expect(try await bob.search("nine").map(\.message.id) == [received.id])
        #expect(try await bob.search("eight").isEmpty, "search finds the edited text, not the old one")

        // Bob cannot edit alice's message; an unknown id is not found. Nothing is queued.
        let queued = try await bob.queuedMessages().count
        let notHis = await App.error { _ = try await bobRoom.edit(received.id, text: "forged") }
        #expect(notHis?.kind == .invalidInput, "\(String(describing: notHis))")
        let missing = await App.error { _ = try await bobRoom.edit(MessageID(rawValue: 9_999), text: "x") }
        #expect(missing?.kind == .notFound && missing?.subject == .message(MessageID(rawValue: 9_999)))
        #expect(try await bob.queuedMessages().count == queued)
        #expect(try await room.editHistory(of: sent.id).count == 2)
    }
}
