import Foundation
import HushKit
import Testing

/// Deletion and disappearing timers (docs/PROTOCOL.md §10.7) through
/// HushKit's public API only, on a real relay process.
@Suite struct HushKitDeletionAndDisappearingTests {
    @Test func aDeletionForEveryoneReachesTheOtherSideAndATimerChangeIsSeenByBoth() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, aliceForBob) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let room = try await alice.room(with: bobForAlice)
        let sent = try await room.send("the secret is pineapples")
        #expect(!sent.isDeleted && sent.expiresAt == nil && sent.expiresAfter == nil)
        #expect(try await App.sync(bob) { try await bob.search("pineapples").count == 1 })
        let bobRoom = try await bob.room(with: aliceForBob)
        let copy = try #require(try await bobRoom.history().messages.last)

        // Bob cannot delete alice's message for everyone; here only, he can.
        let refused = await App.error { try await bobRoom.delete(copy.id, forEveryone: true) }
        #expect(refused?.kind == .invalidInput, "\(String(describing: refused))")
        let bobEvents = bob.events()
        try await room.delete(sent.id, forEveryone: true)
        #expect(try await alice.message(sent.id)?.isDeleted == true)
        #expect(try await App.sync(bob) { try await bob.message(copy.id)?.isDeleted == true })
        #expect(try await bob.search("pineapples").isEmpty)
        #expect(await App.event(in: bobEvents) { $0 == .messageDeleted(copy.id, in: bobRoom.id) } != nil)

        // A timer change, shown in both histories as written by alice.
        let change = try await room.setDisappearingTimer(86_400)
        #expect(change.kind == .timerChange && change.text == "set disappearing messages to 1 day")
        #expect(try await room.disappearingTimer == 86_400)
        #expect(try await App.sync(bob) { try await bobRoom.disappearingTimer == 86_400 })
        let seen = try #require(try await bobRoom.history().messages.last)
        #expect(seen.kind == .timerChange && seen.senderAddress == alice.address)
        let timed = try await room.send("gone a day after reading")
        #expect(timed.expiresAfter == 86_400 && timed.expiresAt == nil)
        #expect(try await App.sync(bob) { try await bobRoom.history().messages.last?.expiresAfter == 86_400 })
        try await bobRoom.markRead()
        #expect(try await bobRoom.history().messages.last?.expiresAt != nil, "read: the timer runs")
        #expect(DisappearingTimer.choices.map(\.name) == ["1h", "1d", "1w", "off"])
        let tooLong = await App.error { _ = try await room.setDisappearingTimer(2_419_201) }
        #expect(tooLong?.kind == .invalidInput)
    }
}
