import Foundation
import Testing
import HushCrypto
@testable import HushMessenger
@_spi(Vectors) @testable import HushProtocol
import HushStore
import HushTesting

/// Large groups (docs/PROTOCOL.md §18.4) through the whole pipeline on the
/// in-memory relay: real stores and sessions; the admin's state over the
/// pairwise sessions, every chain derived from it, messages of version
/// 0x02 in group envelopes.
@Suite struct LargeGroupPipelineTests {
    /// Alice and `names`, registered; each has Alice as an accepted contact
    /// and she has each, and they wrote to each other once (so credentials
    /// are handed over and what follows counts only the group's envelopes).
    /// The members do not know each other.
    private func people(_ names: [String]) async throws -> (InMemoryRelay, [String: Participant]) {
        let relay = InMemoryRelay()
        var people: [String: Participant] = [:]
        for name in ["alice"] + names {
            let person = try Participant(name, relay: relay)
            try await person.messenger.register()
            people[name] = person
        }
        for name in names {
            try await people["alice"]!.messenger.addContact(name: name, address: people[name]!.address)
            try await people[name]!.messenger.addContact(name: "alice", address: people["alice"]!.address)
        }
        try await syncAll(people)
        for name in names {
            try await people["alice"]!.messenger.send(text: "hi", to: name)
            try await people[name]!.messenger.send(text: "hi alice", to: "alice")
        }
        try await syncAll(people)
        return (relay, people)
    }

    private func syncAll(_ people: [String: Participant], rounds: Int = 2) async throws {
        for _ in 0..<rounds {
            for name in people.keys.sorted() { _ = try await people[name]!.messenger.sync() }
        }
    }

    private func store(of person: Participant) throws -> MessageStore {
        try MessageStore(path: person.databasePath, key: person.databaseKey)
    }

    @Test func createdSentAndReadByMembersWhoAreNotContactsWithOneEnvelopePerMember() async throws {
        let (relay, people) = try await people(["bob", "carol", "dave"])
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        let before = relay.state.withLock { $0.depositCalls }
        try await alice.createGroup(name: "town", members: ["bob", "carol", "dave"], large: true)
        #expect(relay.state.withLock { $0.depositCalls } - before == 3, "the state once to each member, nothing else")
        try await syncAll(people)
        let summary = try await carol.groupSummary("town")
        #expect(summary.isLarge && summary.members.count == 4 && summary.members.allSatisfy(\.hasKey))
        // The secret is gone once the chains are derived: the kept state holds an all-zero one.
        let kept = try KeptLargeGroupState.decode(try #require(try store(of: people["carol"]!).groups.group(named: "town")).state)
        #expect(kept.state.secret == SecureBytes(count: 32))

        let sent = try await alice.send(text: "hello town", to: "town")
        #expect(sent.status == .sent)
        try await bob.send(text: "hi from bob", to: "town")
        try await syncAll(people)
        let history = try await carol.history(with: "town")
        #expect(history.map(\.body) == ["hello town", "hi from bob"])
        #expect(history.last?.sender == people["bob"]!.address, "shown as written by bob's identity key")
        #expect(try await carol.contacts().map(\.name) == ["alice"], "no contact is made for the members")
        #expect(try await alice.history(with: "town").map(\.body) == ["hello town", "hi from bob"])
        // No receipts in a large group: the message stays sent.
        #expect(try await alice.groupReceipts(messageId: sent.id) == (0, 0, 0))
        try await carol.markRead(contact: "town")
        try await syncAll(people)
        #expect(try await alice.history(with: "town").first?.status == .sent)
    }

    @Test func addingAndRemovingOneMemberCostsOneEnvelopePerMemberAndTheRemovedReadsNothingAfter() async throws {
        let (relay, people) = try await people(["bob", "carol", "dave", "erin"])
        let alice = people["alice"]!.messenger, carol = people["carol"]!.messenger, dave = people["dave"]!.messenger
        let erin = people["erin"]!.messenger
        try await alice.createGroup(name: "town", members: ["bob", "carol", "dave"], large: true)
        try await syncAll(people)

        var before = relay.state.withLock { $0.depositCalls }
        try await alice.removeFromGroup("town", member: "dave")
        #expect(relay.state.withLock { $0.depositCalls } - before == 3, "bob and carol the new state, dave the notice")
        try await syncAll(people)
        #expect(try await dave.groupList().first?.standing == .removed)
        #expect(try await carol.groupSummary("town").epoch == 2)

        try await alice.send(text: "after dave left", to: "town")
        try await syncAll(people)
        #expect(try await carol.history(with: "town").map(\.body) == ["after dave left"])
        #expect(try await dave.history(with: "town").isEmpty, "the removed member reads nothing sent after")

        before = relay.state.withLock { $0.depositCalls }
        try await alice.addToGroup("town", members: ["erin"])
        #expect(relay.state.withLock { $0.depositCalls } - before == 3, "bob, carol and erin the new state")
        try await syncAll(people)
        try await carol.send(text: "welcome erin", to: "town")
        try await syncAll(people)
        #expect(try await erin.history(with: "town").map(\.body) == ["welcome erin"], "the new member reads only what follows")
        #expect(try await dave.history(with: "town").isEmpty)
    }

    /// A member who leaves asks the admins; the admin who leaves writes the
    /// state without itself (promoting a member when no admin would remain).
    /// Either way the others learn it and the one who left reads nothing after.
    @Test func aMemberAndThenTheAdminLeaveAndTheOthersLearnIt() async throws {
        let (relay, people) = try await people(["bob", "carol", "dave"])
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.createGroup(name: "town", members: ["bob", "carol", "dave"], large: true)
        try await syncAll(people)

        try await people["dave"]!.messenger.leaveGroup("town")
        try await syncAll(people)
        #expect(try await carol.groupSummary("town").members.count == 3, "the admin wrote the state without dave")

        try await alice.leaveGroup("town")
        // Carol writes before she knows: Alice drops it unread, under the envelope key she kept.
        try await carol.send(text: "before carol knew", to: "town")
        let atAlice = try await alice.sync()
        #expect(atAlice.dropped >= 1 && atAlice.waitingForGroupKeys == 0, "\(atAlice)")
        #expect(relay.stored(for: people["alice"]!.identity.publicKey).count == 0, "left at the relay")
        let kept = try KeptLargeGroupState.decode(try #require(try store(of: people["alice"]!).groups.group(named: "town")).state)
        #expect(kept.envelopeKey == SecureBytes(count: 32), "the left group's state keeps its envelope key")
        try await syncAll(people)
        let atCarol = try await carol.groupSummary("town")
        #expect(atCarol.epoch == 3 && atCarol.members.count == 2, "\(atCarol)")
        #expect(atCarol.members.contains { $0.isAdmin }, "a member was promoted")
        try await bob.send(text: "after alice left", to: "town")
        try await syncAll(people)
        #expect(try await carol.history(with: "town").map(\.body) == ["before carol knew", "after alice left"])
    }

    /// Every member derives every chain, so carol can encrypt as bob; her
    /// binding of the signing key is not bob's, and the message is refused.
    /// Bob's own message still opens afterwards: the chain took nothing.
    @Test func aMemberWritingAsAnotherIsRefusedForItsBinding() async throws {
        let (relay, people) = try await people(["bob", "carol"])
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger
        try await alice.createGroup(name: "town", members: ["bob", "carol"], large: true)
        try await syncAll(people)

        let carolStore = try store(of: people["carol"]!)
        let group = try #require(try carolStore.groups.group(named: "town"))
        let kept = try KeptLargeGroupState.decode(group.state)
        let bobKey = people["bob"]!.identity.publicKey
        let stored = try #require(try carolStore.groups.memberChain(epoch: kept.epoch, memberKey: bobKey.rawRepresentation, groupRow: group.id))
        // The local form of a chain no message moved yet: its initial chain key after the header.
        let header = 1 + 16 + 4 + 32 + 1
        let forged = try SenderKeyChain.own(groupID: kept.state.groupID, epoch: kept.epoch,
                                            chainKey: SecureBytes(copying: stored[header..<header + 32]),
                                            signingSeed: SecureBytes(randomCount: 32))
        let binding = MemberKeyBinding.sign(by: people["carol"]!.identity, groupID: kept.state.groupID, epoch: kept.epoch,
                                            signingKey: forged.signingKey)
        let content = Content(id: MessageID.random(), sentAt: 1_700_000_000_000, body: .text("bob never wrote this"))
        let message = try forged.seal(try content.encoded()) { iteration in
            LargeGroupMessageHead(groupID: kept.state.groupID, epoch: kept.epoch, signingKey: forged.signingKey, iteration: iteration,
                                  member: bobKey, binding: binding).encoded
        }
        relay.inject(try GroupEnvelope.seal(message, key: kept.envelopeKey), into: people["alice"]!.identity.publicKey)
        let report = try await alice.sync()
        #expect(report.received == 0 && report.quarantined == 1)
        #expect(try await alice.history(with: "town").isEmpty)

        try await bob.send(text: "really bob", to: "town")
        try await syncAll(people)
        #expect(try await alice.history(with: "town").map(\.body) == ["really bob"])
    }

    /// A member that lost its chain's place (as a restored account has)
    /// sends nothing under the state: it asks an admin, who writes the next
    /// epoch, and then it sends.
    @Test func aMemberWithoutItsChainAsksForANewStateAndThenSends() async throws {
        let (_, people) = try await people(["bob", "carol"])
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.createGroup(name: "town", members: ["bob", "carol"], large: true)
        try await syncAll(people)
        let bobStore = try store(of: people["bob"]!)
        let group = try #require(try bobStore.groups.group(named: "town"))
        try bobStore.groups.forgetChains(of: people["bob"]!.identity.publicKey.rawRepresentation, groupRow: group.id)

        await #expect(throws: MessengerError.self) { try await bob.send(text: "lost", to: "town") }
        try await syncAll(people)
        #expect(try await alice.groupSummary("town").epoch == 2, "the admin wrote the next state")
        #expect(try await bob.groupSummary("town").epoch == 2)
        try await bob.send(text: "back again", to: "town")
        try await syncAll(people)
        #expect(try await carol.history(with: "town").map(\.body) == ["back again"])
    }

    /// The relay takes at most 255 mailboxes a fan-out: a group of 257
    /// reaches its 256 other members in two parts, under one request id.
    @Test func aMessageToMoreThan255MembersGoesInPartsOfAtMost255() async throws {
        let relay = InMemoryRelay()
        let alice = try Participant("alice", relay: relay)
        try await alice.messenger.register()
        // The members only need a bundle at the relay (Alice starts a session with each): no store of their own.
        var members: [(name: String, key: IdentityKey)] = []
        for index in 0..<256 {
            let identity = IdentityKeyPair.generate(using: DeterministicRandom(seed: "crowd-\(index)"))
            try await relay.transport(for: identity).register(
                identity: identity, signedPrekey: try PrivatePrekey.generate(kind: .signedX25519, id: 1, identity: identity).signed,
                lastResortKEMPrekey: try PrivatePrekey.generate(kind: .lastResortKEM, id: 2, identity: identity).signed, oneTimePrekeys: [])
            try await alice.messenger.addContact(name: "m\(index)", address: identity.address.description)
            members.append(("m\(index)", identity.publicKey))
        }
        try await alice.messenger.createGroup(name: "crowd", members: members.map(\.name), large: true)
        relay.state.withLock { $0.fanOutSizes = [] }
        let sent = try await alice.messenger.send(text: "to the crowd", to: "crowd")
        #expect(sent.status == .sent)
        #expect(relay.state.withLock { $0.fanOutSizes } == [255, 1])
        // The same group envelope, last in every member's mailbox.
        let last = members.map { relay.stored(for: $0.key).last?.bytes ?? [] }
        #expect(GroupEnvelope.isGroupEnvelope(last[0]) && last.allSatisfy { $0 == last[0] })
    }
}
