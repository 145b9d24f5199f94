import Foundation
import Testing
import HushCrypto
import HushMessenger
import HushProtocol
import HushStore

/// Groups through the whole pipeline on the in-memory relay: real stores,
/// real sessions, sender keys and group envelopes.
@Suite struct GroupPipelineTests {
    /// Alice, Bob, Carol and Dave registered; Alice has each as a contact
    /// and each has Alice (accepted both ways); Bob and Carol do not know each other.
    private func four() async throws -> (InMemoryRelay, [String: Participant]) {
        let relay = InMemoryRelay()
        var people: [String: Participant] = [:]
        for name in ["alice", "bob", "carol", "dave"] {
            let person = try Participant(name, relay: relay)
            try await person.messenger.register()
            people[name] = person
        }
        for name in ["bob", "carol", "dave"] {
            try await people["alice"]!.messenger.addContact(name: name, address: people[name]!.address)
            try await people[name]!.messenger.addContact(name: "alice", address: people["alice"]!.address)
        }
        try await syncAll(people)
        return (relay, people)
    }

    private func syncAll(_ people: [String: Participant], rounds: Int = 3) async throws {
        for _ in 0..<rounds {
            for name in people.keys.sorted() { _ = try await people[name]!.messenger.sync() }
        }
    }

    @Test func threeMembersTalkAndReceiptsCountPerMember() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        #expect(try await bob.groupList().map(\.name) == ["team"])
        #expect(try await carol.groupSummary("team").members.count == 3)
        #expect(try await carol.groupSummary("team").members.allSatisfy { $0.hasKey })

        let sent = try await alice.send(text: "hello team", to: "team")
        #expect(sent.status == .sent)
        try await bob.send(text: "hi from bob", to: "team")
        try await syncAll(people)
        #expect(try await carol.history(with: "team").map(\.body) == ["hello team", "hi from bob"])
        #expect(try await alice.history(with: "team").map(\.body) == ["hello team", "hi from bob"])
        // Delivered to both members, so delivered; then read by both.
        #expect(try await alice.history(with: "team").first?.status == .delivered)
        #expect(try await alice.groupReceipts(messageId: sent.id) == (2, 2, 0))
        try await bob.markRead(contact: "team")
        try await syncAll(people)
        #expect(try await alice.groupReceipts(messageId: sent.id) == (2, 2, 1))
        #expect(try await alice.history(with: "team").first?.status == .delivered)
        try await carol.markRead(contact: "team")
        try await syncAll(people)
        #expect(try await alice.history(with: "team").first?.status == .read)
    }

    @Test func anAddedMemberReadsOnlyFromThenOnAndARemovedOneNothingAfter() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, dave = people["dave"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        try await alice.send(text: "before dave", to: "team")
        try await syncAll(people)
        try await alice.addToGroup("team", members: ["dave"])
        try await syncAll(people)
        try await bob.send(text: "welcome dave", to: "team")
        try await syncAll(people)
        #expect(try await dave.history(with: "team").map(\.body) == ["welcome dave"])
        #expect(try await dave.groupSummary("team").epoch == 2)

        try await alice.removeFromGroup("team", member: "dave")
        try await syncAll(people)
        #expect(try await dave.groupSummary("team").standing == .removed)
        let before = relay.stored(for: people["dave"]!.identity.publicKey).count
        try await bob.send(text: "dave is gone", to: "team")
        try await syncAll(people)
        // Nothing more reaches Dave's mailbox, and nothing new shows on his side.
        #expect(relay.stored(for: people["dave"]!.identity.publicKey).count == before)
        #expect(try await dave.history(with: "team").map(\.body) == ["welcome dave"])
        #expect(try await people["carol"]!.messenger.history(with: "team").map(\.body).last == "dave is gone")
        await #expect(throws: MessengerError.self) { try await dave.send(text: "let me in", to: "team") }
    }

    @Test func aNameThatIsBothAContactAndAGroupMustBeQualified() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger
        try await alice.createGroup(name: "bob", members: ["bob", "carol"])
        await #expect(throws: MessengerError.ambiguousName("bob")) { try await alice.send(text: "x", to: "bob") }
        #expect(try await alice.send(text: "to the group", to: "group:bob").status == .sent)
        #expect(try await alice.send(text: "to bob alone", to: "contact:bob").status == .sent)
    }

    @Test func aMemberWhoLeavesIsRemovedByTheAdminAndReadsNothingAfter() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        try await carol.leaveGroup("team")
        try await syncAll(people)
        #expect(try await alice.groupSummary("team").members.map(\.name).sorted() == ["bob", "you"])
        #expect(try await bob.groupSummary("team").members.count == 2)
        try await bob.send(text: "just us", to: "team")
        try await syncAll(people)
        #expect(try await alice.history(with: "team").map(\.body) == ["just us"])
        #expect(try await carol.history(with: "team").isEmpty)
    }
}
