import Foundation
@testable import HushKit
import Testing

/// A member's removal from a small group (docs/PROTOCOL.md §18.2): what it
/// sent while still a member reaches every member, the admin who removed
/// it included, and nothing it sends after the removal does.
@Suite struct GroupRemovalTests {
    static func texts(_ account: HushAccount, in group: ConversationID) async throws -> [String] {
        try await account.room(group).history(limit: 100).messages.map(\.text)
    }

    /// The walkthrough's loss: carol writes; alice, who has not synced since, removes her; alice's
    /// sync then refused carol's message (her chain was forgotten at the removal) while bob, whose
    /// mailbox held it before the removal, showed it: two histories of one group.
    @Test func whatARemovedMemberSentBeforeTheRemovalReachesEveryMember() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay)
        let bob = try await App.account("bob", relay: relay), carol = try await App.account("carol", relay: relay)
        defer { alice.close(); bob.close(); carol.close() }
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let (carolForAlice, _) = try await App.introduce(alice, carol, as: ("alice", "carol"))
        let group = try await alice.createGroup(name: "team", members: [bobForAlice, carolForAlice])
        // Every member holds every other's chain.
        for _ in 0..<3 {
            for account in [alice, bob, carol] { _ = try await account.sync() }
        }
        let onBob = try #require(try await bob.groups().first).id, onCarol = try #require(try await carol.groups().first).id
        _ = try await bob.room(onBob).send("bob is here")
        #expect(try await App.sync(carol) { try await Self.texts(carol, in: onCarol).contains("bob is here") })

        _ = try await carol.room(onCarol).send("carol, still a member")
        _ = try await alice.room(group.id).removeMember(carolForAlice)
        #expect(try await App.sync(alice) { try await Self.texts(alice, in: group.id).contains("carol, still a member") })
        #expect(try await App.sync(bob) { try await Self.texts(bob, in: onBob).contains("carol, still a member") })

        // Carol has not synced: she still writes to the group, after her removal was stored. Nobody shows it.
        try await Task.sleep(for: .milliseconds(50))
        _ = try await carol.room(onCarol).send("carol, removed")
        for _ in 0..<2 {
            for account in [alice, bob] { _ = try? await account.sync() }
        }
        #expect(try await !Self.texts(alice, in: group.id).contains("carol, removed"))
        #expect(try await !Self.texts(bob, in: onBob).contains("carol, removed"))
        #expect(try await Self.texts(alice, in: group.id).filter { $0 == "carol, still a member" }.count == 1)
    }
}
