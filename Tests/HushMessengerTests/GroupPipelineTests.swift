import Foundation
import Testing
import HushCrypto
@testable import HushMessenger
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

    /// A member whose credential the relay no longer knows gets the group
    /// message at once as a first contact, in the same pass, by the rule a
    /// single deposit follows; the member who took it is not posted to again.
    @Test func aRefusedCredentialInAFanOutIsDroppedAndThatMemberGetsItAsAFirstContact() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        #expect(try await alice.deliveryCredentialKnown(for: "bob"))
        #expect(try await alice.deliveryCredentialKnown(for: "carol"))

        let before = relay.state.withLock { state in
            state.depositFailures = [.rejected(status: 403, code: "invalid_credential")]
            return state.depositCalls
        }
        let sent = try await alice.send(text: "after a 403", to: "team")
        #expect(sent.status == .sent, "deposited again at once to the member refused, as a first contact")
        #expect(relay.state.withLock { $0.depositCalls } - before == 3, "each member once, and the refused one again")
        let known = [try await alice.deliveryCredentialKnown(for: "bob"), try await alice.deliveryCredentialKnown(for: "carol")]
        #expect(known.filter { !$0 }.count == 1, "\(known)")
        #expect(try await alice.outbox().isEmpty)
        try await syncAll(people)
        #expect(try await bob.history(with: "team").map(\.body).contains("after a 403"))
        #expect(try await carol.history(with: "team").map(\.body).contains("after a 403"))
    }

    /// A member whose contact Bob removed still writes to the group: the
    /// message is read (the contact made again from the group's membership),
    /// not kept waiting at the relay for a membership that never comes.
    @Test func aMemberWhoseContactWasRemovedIsReadNotWaitedFor() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        let carolAtBob = try #require(try await bob.groupSummary("team").members.first { !$0.isYou && !$0.isAdmin }?.name)
        try await bob.removeContact(name: carolAtBob)
        try await carol.send(text: "still here", to: "team")
        let report = try await bob.sync()
        #expect(report.waitingForGroupKeys == 0)
        #expect(try await bob.history(with: "team").map(\.body) == ["still here"])
        #expect(try await bob.contacts().contains { $0.name == carolAtBob })
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

    /// The admin leaves by writing the state without itself: the others take
    /// it (a member is promoted), what Bob wrote before he knew is dropped
    /// unread at Alice's, not left waiting at her relay, and Alice keeps no
    /// secret of the group: the state she shows it with has an all-zero one.
    @Test func theAdminWhoLeavesTellsTheOthersDropsWhatCameLateAndKeepsNoSecret() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        try await alice.messenger.leaveGroup("team")
        try await bob.send(text: "before bob knew", to: "team")
        let atAlice = try await alice.messenger.sync()
        #expect(atAlice.dropped >= 1 && atAlice.waitingForGroupKeys == 0, "\(atAlice)")
        #expect(relay.stored(for: alice.identity.publicKey).count == 0, "left at the relay")
        #expect(try await alice.messenger.quarantined().isEmpty)
        let kept = try #require(try MessageStore(path: alice.databasePath, key: alice.databaseKey).groups.group(named: "team"))
        #expect(try GroupState.decode(kept.state).secret == SecureBytes(count: 32), "the left group's state keeps its secret")

        try await syncAll(people)
        let atCarol = try await carol.groupSummary("team")
        #expect(atCarol.epoch == 2 && atCarol.members.count == 2 && atCarol.members.contains { $0.isAdmin }, "\(atCarol)")
        try await carol.send(text: "after alice left", to: "team")
        try await syncAll(people)
        #expect(try await bob.history(with: "team").map(\.body) == ["before bob knew", "after alice left"])
    }

    /// Bob holds Carol's chain (every member holds every other's) and so can
    /// derive her message keys; what he cannot make is her signature. A
    /// message he writes under her chain, signed with any other key, is set
    /// aside by Alice, and her copy of Carol's chain reads Carol's next one.
    @Test func aMessageForgedUnderAnotherMembersChainIsRefused() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!, bob = people["bob"]!, carol = people["carol"]!
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)

        let bobStore = try MessageStore(path: bob.databasePath, key: bob.databaseKey)
        let group = try #require(try bobStore.groups.group(named: "team"))
        let state = try GroupState.decode(group.state)
        let carolKey = carol.identity.publicKey.rawRepresentation
        let chain = try #require(try bobStore.database.query("SELECT chain FROM sender_chains WHERE member_key = ?", [carolKey]) {
            try $0.get(0, as: [UInt8].self)
        }.first)
        // The stored chain: version, group id, epoch, signing key, iteration, chain key (docs/PROTOCOL.md §13).
        let head = [UInt8(0x01)] + Array(chain[1..<57])
        let chainKey = Array(chain[57..<89])
        let messageKey = HMACSHA256.authenticationCode(for: [RatchetConstants.messageKeyConstant], key: chainKey)
        let content = try Content(id: MessageID.random(), sentAt: 1, body: .text("forged by bob")).encoded()
        let body = try XChaCha20Poly1305.seal(try Padding.pad(content), key: SecureBytes(copying: messageKey),
                                              nonce: [UInt8](repeating: 0, count: 24), associatedData: head)
        let signed = head + body
        let forged = signed + Ed25519.PrivateKey().signature(for: signed)
        relay.inject(try GroupEnvelope.seal(forged, key: state.envelopeKey()), into: alice.identity.publicKey)

        let report = try await alice.messenger.sync()
        #expect(report.quarantined == 1 && report.received == 0, "\(report)")
        try await carol.messenger.send(text: "really carol", to: "team")
        try await syncAll(people)
        #expect(try await alice.messenger.history(with: "team").map(\.body) == ["really carol"])
    }

    /// The weakness SECURITY.md named, closed (docs/PROTOCOL.md §18.1): Bob,
    /// a member, names Carol's signing key (as seen in her group messages)
    /// in a distribution of his own, sealed to Alice while Alice holds no
    /// chain of Carol's (as a restored or new member holds none), and signs
    /// it with the only signing key he can, his own. Alice refuses it, sets
    /// it aside with its reason and keeps nothing; Carol's own distribution
    /// is then taken, and her messages read as hers. (Before, Alice kept
    /// Bob's chain key under Carol's signing key: she could not read Carol
    /// in that epoch and asked Bob to resend.)
    @Test func aDistributionNamingAnotherMembersSigningKeyIsRefused() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!, bob = people["bob"]!, carol = people["carol"]!
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)

        let carolKey = carol.identity.publicKey.rawRepresentation
        let aliceStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        try aliceStore.database.execute("DELETE FROM sender_chains WHERE member_key = ?", [carolKey])
        let bobStore = try MessageStore(path: bob.databasePath, key: bob.databaseKey)
        let (epoch, carolSigningKey) = try #require(try bobStore.database.query(
            "SELECT epoch, signing_key FROM sender_chains WHERE member_key = ?", [carolKey]) {
            (try $0.get(0, as: Int64.self), try $0.get(1, as: [UInt8].self))
        }.first)
        let groupID = try GroupState.decode(try #require(try bobStore.groups.group(named: "team")).state).groupID
        let fields = try SenderKeyDistribution(groupID: groupID, epoch: UInt32(epoch), iteration: 0, chainKey: SecureBytes(randomCount: 32),
                                               signingKey: try Ed25519.PublicKey(rawRepresentation: carolSigningKey),
                                               signature: [UInt8](repeating: 0, count: 64))
        let bobsSigningKey = Ed25519.PrivateKey()
        let forged = try SenderKeyDistribution(groupID: fields.groupID, epoch: fields.epoch, iteration: 0, chainKey: fields.chainKey,
                                               signingKey: fields.signingKey,
                                               signature: bobsSigningKey.signature(for: fields.transcript(member: bob.identity.publicKey)))
        try await bob.messenger.seal(.senderKeyDistribution(forged), to: "alice")
        await bob.messenger.flushOutbox()

        let report = try await alice.messenger.sync()
        #expect(report.quarantined + report.resendRequested == 1 && report.received == 0, "\(report)")
        let reasons = try await alice.messenger.quarantined().map(\.reason)
        #expect(reasons.contains { $0.contains("sender key distribution whose signature does not verify") }, "\(reasons)")
        let kept = try aliceStore.database.query("SELECT count(*) FROM sender_chains WHERE signing_key = ?", [carolSigningKey]) {
            try $0.get(0, as: Int64.self)
        }
        #expect(kept == [0])

        // Carol hands her chain over on a new session (docs/PROTOCOL.md §19.4), and writes.
        let carolContact = try #require(try aliceStore.contacts.contact(identityKey: carolKey))
        try aliceStore.database.execute("DELETE FROM ratchet_sessions WHERE contact_id = ?", [carolContact.id])
        #expect(try await alice.messenger.startMissingSessions() == 1)
        try await alice.messenger.send(text: "new session", to: carolContact.name)
        try await syncAll(people)
        try await carol.messenger.send(text: "really carol", to: "team")
        try await syncAll(people)
        let history = try await alice.messenger.history(with: "team")
        #expect(history.map(\.body) == ["really carol"])
        #expect(history.map(\.sender) == [carol.address])
    }

    /// Group messages read in any order, and each at most once: the relay's
    /// order is swapped, then both envelopes are delivered a second time.
    @Test func outOfOrderAndDuplicatedGroupMessagesAreReadOnce() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!, bob = people["bob"]!
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        try await bob.messenger.send(text: "first", to: "team")
        try await bob.messenger.send(text: "second", to: "team")
        let mailbox = alice.identity.publicKey.rawRepresentation
        let copies: [[UInt8]] = relay.state.withLock { state in
            var box = state.mailboxes[mailbox] ?? []
            let groupIndices = box.indices.filter { GroupEnvelope.isGroupEnvelope(box[$0].bytes) }
            guard groupIndices.count == 2 else { return [] }
            let (a, b) = (groupIndices[0], groupIndices[1])
            let (first, second) = (box[a], box[b])
            box[a] = MailboxEnvelope(serverID: first.serverID, relayTimestamp: first.relayTimestamp, bytes: second.bytes)
            box[b] = MailboxEnvelope(serverID: second.serverID, relayTimestamp: second.relayTimestamp, bytes: first.bytes)
            state.mailboxes[mailbox] = box
            return [first.bytes, second.bytes]
        }
        try #require(copies.count == 2)
        #expect(try await alice.messenger.sync().received >= 2)
        #expect(Set(try await alice.messenger.history(with: "team").map(\.body)) == ["first", "second"])
        for copy in copies { relay.inject(copy, into: alice.identity.publicKey) }
        // A replay is indistinguishable from a message whose key is gone
        // (docs/PROTOCOL.md §10.1): each is answered once, and Bob, whose
        // messages Alice confirmed, sends nothing again.
        let again = try await alice.messenger.sync()
        #expect(again.received == 0 && again.quarantined + again.resendRequested == 2, "\(again)")
        _ = try await bob.messenger.sync()
        _ = try await alice.messenger.sync()
        #expect(try await alice.messenger.history(with: "team").count == 2)
    }

    /// Group envelopes waiting in `person`'s mailbox.
    private func groupEnvelopes(_ relay: InMemoryRelay, for person: Participant) -> [[UInt8]] {
        relay.stored(for: person.identity.publicKey).map(\.bytes).filter(GroupEnvelope.isGroupEnvelope)
    }

    /// Two members restored at the same time each report a decryption error
    /// for the same group message: each gets it resealed once (once per
    /// message and member, docs/PROTOCOL.md §19.4), not only the first to
    /// ask; the same member asking again gets nothing more.
    @Test func twoMembersWhoCannotOpenAGroupMessageEachGetItResentOnce() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!, bob = people["bob"]!, carol = people["carol"]!
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)

        _ = try await alice.messenger.send(text: "for the restored", to: "team")
        let original = try #require(groupEnvelopes(relay, for: bob).first)
        #expect(groupEnvelopes(relay, for: carol) == [original])
        try await expectResentOncePerMember(original, by: alice, to: bob, and: carol, relay: relay)
        #expect(try await alice.messenger.outbox().isEmpty)
        #expect(try await bob.messenger.history(with: "team").map(\.body) == ["for the restored"])
        #expect(try await carol.messenger.history(with: "team").map(\.body) == ["for the restored"])
    }

    /// A resend goes to the member who asked alone, so another member's
    /// changed key, which stops everything sent to the whole group until the
    /// user settles it (docs/PROTOCOL.md §18.2), does not stop it: it was
    /// answered once, and refused it was lost for good.
    @Test func aResendToOneMemberIsNotHeldBackByAnotherMembersChangedKey() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!, bob = people["bob"]!, carol = people["carol"]!
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        _ = try await alice.messenger.send(text: "before the change", to: "team")
        let original = try #require(groupEnvelopes(relay, for: bob).first)
        _ = try await bob.messenger.sync()
        relay.state.withLock { $0.mailboxes[alice.identity.publicKey.rawRepresentation] = [] }

        // Carol's key changes at Alice's; Bob meanwhile cannot open the message (a restore).
        let aliceStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        let carolAtAlice = try #require(try aliceStore.contacts.contact(identityKey: carol.identity.publicKey.rawRepresentation))
        try aliceStore.contacts.recordChangedIdentityKey(IdentityKeyPair.generate().publicKey.rawRepresentation, contactId: carolAtAlice.id)
        await #expect(throws: MessengerError.self) { try await alice.messenger.send(text: "to everyone", to: "team") }
        relay.inject(original, into: bob.identity.publicKey)
        #expect(try await bob.messenger.sync().resendRequested == 1)

        _ = try await alice.messenger.sync()
        #expect(groupEnvelopes(relay, for: bob).count == 1, "resealed for Bob")
        #expect(groupEnvelopes(relay, for: carol).count == 1, "Carol has only the original")
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.history(with: "team").map(\.body) == ["before the change"])
    }

    /// A reaction is a group content history does not show: a member who
    /// cannot open it (here a copy whose key is used, as a restored member
    /// finds) gets it sealed again for them alone, once per member; the
    /// same member asking again gets nothing more (docs/PROTOCOL.md §10.1).
    @Test func aReactionAMemberCannotOpenIsResentToThatMemberOnce() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!, bob = people["bob"]!, carol = people["carol"]!
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        let sent = try await alice.messenger.send(text: "lunch?", to: "team")
        try await syncAll(people)

        try await alice.messenger.react(toMessage: sent.id, emoji: "🍜")
        let original = try #require(groupEnvelopes(relay, for: bob).first)
        try await expectResentOncePerMember(original, by: alice, to: bob, and: carol, relay: relay)
        for member in [bob, carol] {
            let lunch = try #require(try await member.messenger.history(with: "team").first { $0.body == "lunch?" })
            let reactions = try await member.messenger.decorations(of: [lunch]).reactions[lunch.id] ?? []
            #expect(reactions.map(\.emoji) == ["🍜"], "applied once, whatever the copies")
        }
    }

    /// `sender`'s group envelope `original`, waiting for `first` and
    /// `second`: both take it and their receipts are lost (so the sender
    /// cannot tell they have it); then the same envelope again is one
    /// neither can open (its key is used), as a member restored without it
    /// finds, and each asks for it. Each gets it sealed again for them
    /// alone; `first`, given a copy of that resend, asks again and gets
    /// nothing more.
    private func expectResentOncePerMember(_ original: [UInt8], by sender: Participant, to first: Participant, and second: Participant,
                                           relay: InMemoryRelay, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let senderMailbox = sender.identity.publicKey.rawRepresentation
        _ = try await first.messenger.sync()
        _ = try await second.messenger.sync()
        relay.state.withLock { $0.mailboxes[senderMailbox] = [] }
        for member in [first, second] {
            relay.inject(original, into: member.identity.publicKey)
            #expect(try await member.messenger.sync().resendRequested == 1, sourceLocation: sourceLocation)
        }
        _ = try await sender.messenger.sync()
        let resentToFirst = groupEnvelopes(relay, for: first), resentToSecond = groupEnvelopes(relay, for: second)
        #expect(resentToFirst.count == 1, "the first member's resend", sourceLocation: sourceLocation)
        #expect(resentToSecond.count == 1, "the second member's resend, though the first had theirs", sourceLocation: sourceLocation)
        #expect(Set(resentToFirst).isDisjoint(with: resentToSecond), "each sealed for that member alone", sourceLocation: sourceLocation)
        #expect(try await sender.messenger.outbox().isEmpty, sourceLocation: sourceLocation)

        _ = try await first.messenger.sync()
        _ = try await second.messenger.sync()
        relay.state.withLock { $0.mailboxes[senderMailbox] = [] }
        guard let resend = resentToFirst.first else { return }
        relay.inject(resend, into: first.identity.publicKey)
        #expect(try await first.messenger.sync().resendRequested == 1, sourceLocation: sourceLocation)
        _ = try await sender.messenger.sync()
        #expect(groupEnvelopes(relay, for: first).isEmpty, "resent to the first member once already: nothing more", sourceLocation: sourceLocation)
    }

    /// A member hands its chain over again when it accepts a new session
    /// (docs/PROTOCOL.md §11, §19.4); a receiver that holds the chain keeps
    /// its own copy. Here the hand-over, at a later iteration, arrives before
    /// the group message sealed just before it: taking it would have moved
    /// Bob's copy of Carol's chain past that message's key, and it would
    /// never open.
    @Test func aChainHandedOverAgainDoesNotReplaceTheCopyAlreadyHeld() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!, bob = people["bob"]!, carol = people["carol"]!
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)

        // Bob starts a new session with Carol (as a restored account would).
        let bobStore = try MessageStore(path: bob.databasePath, key: bob.databaseKey)
        let carolContact = try #require(try bobStore.contacts.contact(identityKey: carol.identity.publicKey.rawRepresentation))
        try bobStore.database.execute("DELETE FROM ratchet_sessions WHERE contact_id = ?", [carolContact.id])
        #expect(try await bob.messenger.startMissingSessions() == 1)
        try await bob.messenger.send(text: "new session", to: carolContact.name)

        // Carol writes to the group, then accepts the session and hands her chain over.
        try await carol.messenger.send(text: "before the hand-over", to: "team")
        _ = try await carol.messenger.sync()
        let mailbox = bob.identity.publicKey.rawRepresentation
        let moved: Bool = relay.state.withLock { state in
            let box = state.mailboxes[mailbox] ?? []
            guard let group = box.firstIndex(where: { GroupEnvelope.isGroupEnvelope($0.bytes) }), group < box.count - 1 else { return false }
            // The group message last, behind what Carol sealed to Bob after it.
            let bytes = box.filter { !GroupEnvelope.isGroupEnvelope($0.bytes) }.map(\.bytes) + [box[group].bytes]
            state.mailboxes[mailbox] = zip(box, bytes).map { MailboxEnvelope(serverID: $0.serverID, relayTimestamp: $0.relayTimestamp, bytes: $1) }
            return true
        }
        try #require(moved)
        let report = try await bob.messenger.sync()
        #expect(report.quarantined == 0 && report.resendRequested == 0, "\(report)")
        #expect(try await bob.messenger.history(with: "team").map(\.body) == ["before the hand-over"])
    }

    /// Two admins change the group at once (both write epoch 3): whatever
    /// order the states arrive in, every member ends on the same one, the
    /// one with the lower digest (docs/PROTOCOL.md §18.2), and can talk in it.
    @Test func concurrentChangesByTwoAdminsConverge() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await bob.addContact(name: "dave", address: people["dave"]!.address)
        try await people["dave"]!.messenger.addContact(name: "bob", address: people["bob"]!.address)
        try await alice.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        try await alice.promoteInGroup("team", member: "bob")
        try await syncAll(people)
        #expect(try await bob.groupSummary("team").youAreAdmin)

        // At once, neither having seen the other's change.
        try await alice.renameGroup("team", to: "team-a")
        let carolName = try await bob.groupSummary("team").members.first { $0.address == people["carol"]!.address }!.name
        try await bob.removeFromGroup("team", member: carolName)
        try await syncAll(people)

        let views = try await [alice.groupList(), bob.groupList()].map { $0.first! }
        #expect(views[0].epoch == 3 && views[1].epoch == 3, "\(views)")
        #expect(views[0].members.map(\.address).sorted() == views[1].members.map(\.address).sorted(), "\(views)")
        // Carol's view agrees with theirs: still in the group, or removed.
        let carolIn = views[0].members.contains { $0.address == people["carol"]!.address }
        #expect(try await carol.groupList().first!.standing == (carolIn ? .member : .removed))
        // And the group still works in the state they converged on.
        let name = views[1].name
        try await bob.send(text: "after the race", to: name)
        try await syncAll(people)
        #expect(try await alice.history(with: views[0].name).map(\.body).last == "after the race")
    }

    /// Bob removes Carol while Alice, not having seen it, renames the group
    /// (both write epoch 3), and Carol reads the removal first. Alice and Bob
    /// converge. When Alice's state wins (the lower digest), Carol, who holds
    /// Bob's without its secret, cannot tell (PROTOCOL §18.2, limits): she
    /// stays out until the next change, which brings her back; she then reads
    /// what follows. Eight groups, so that both states win in some of them.
    @Test func aMemberRemovedByTheLosingOfTwoConcurrentChangesIsInTheGroupItConvergesOn() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        var carolStayed = 0
        for round in 0..<8 {
            let name = "race\(round)"
            try await alice.createGroup(name: name, members: ["bob", "carol"])
            try await syncAll(people)
            try await alice.promoteInGroup(name, member: "bob")
            try await syncAll(people)
            let carolAtBob = try #require(try await bob.groupSummary(name).members.first { $0.address == people["carol"]!.address }?.name)
            try await bob.removeFromGroup(name, member: carolAtBob)
            // Carol reads the removal before Alice has written anything.
            _ = try await bob.sync()
            _ = try await carol.sync()
            #expect(try await carol.groupSummary(name).standing == .removed)
            try await alice.renameGroup(name, to: name + "-renamed")
            try await syncAll(people)

            var views: [GroupSummary] = []
            for messenger in [alice, bob] {
                views.append(try #require(try await messenger.groupList().first { $0.name.hasPrefix(name) }))
            }
            #expect(views[0].epoch == 3 && views[1].epoch == 3, "\(views)")
            #expect(views[0].members.map(\.address).sorted() == views[1].members.map(\.address).sorted(), "\(views)")
            let carolIn = views[0].members.contains { $0.address == people["carol"]!.address }
            guard carolIn else {
                let atCarol = try #require(try await carol.groupList().first { $0.name.hasPrefix(name) })
                #expect(atCarol.standing == .removed, "round \(round): \(atCarol)")
                continue
            }
            carolStayed += 1
            // The next change reaches Carol as a state of a later epoch from a member the removal listed.
            try await alice.renameGroup(views[0].name, to: name + "-again")
            try await syncAll(people)
            let atCarol = try #require(try await carol.groupList().first { $0.name.hasPrefix(name) })
            #expect(atCarol.standing == .member && atCarol.epoch == 4, "round \(round): \(atCarol)")
            try await bob.send(text: "still with us, \(round)", to: name + "-again")
            try await syncAll(people)
            #expect(try await carol.history(with: atCarol.name).map(\.body).last == "still with us, \(round)")
        }
        // The random source is seeded per participant, so the outcomes are the same on every run.
        #expect((1...7).contains(carolStayed), "each state won in some group: Carol stayed in \(carolStayed) of 8")
    }

    /// Members keep the previous state's keys for messages in flight, but
    /// not a removed member's chain: what Dave writes under the old state
    /// after Alice removed him is refused, not stored.
    @Test func aRemovedMemberCannotWriteUnderThePreviousState() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, dave = people["dave"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "dave"])
        try await syncAll(people)
        try await alice.removeFromGroup("team", member: "dave")
        // Dave has not synced: his client still has him in the group, under epoch 1.
        try await dave.send(text: "still here?", to: "team")
        let report = try await bob.sync()
        #expect(report.quarantined == 1, "\(report)")
        #expect(try await bob.history(with: "team").isEmpty)
        #expect(try await bob.groupSummary("team").members.count == 2)
    }

    /// Bob was away while Alice changed the group twice (removed Dave, then
    /// renamed it). What Bob writes before he has caught up, under the state
    /// two changes old, is read by Carol and Alice, who keep the states of
    /// the group's last epochs, not only the one before the current (a user
    /// walkthrough: it waited at their relay for good, and Bob's side showed
    /// it "sent" for ever). Dave, no longer in the group, is not waited for
    /// once Bob learns he is out.
    @Test func aMemberWhoMissedTwoChangesIsStillReadAndRemovedMembersAreNotWaitedFor() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "carol", "dave"])
        try await syncAll(people)
        try await alice.removeFromGroup("team", member: "dave")
        try await alice.renameGroup("team", to: "crew")
        for name in ["alice", "carol", "dave"] { _ = try await people[name]!.messenger.sync() }
        #expect(try await carol.groupSummary("crew").epoch == 3)

        // Bob has not synced: his client still has the group at epoch 1, with Dave in it.
        let sent = try await bob.send(text: "from two changes back", to: "team")
        let atCarol = try await carol.sync()
        #expect(atCarol.waitingForGroupKeys == 0, "\(atCarol)")
        #expect(try await carol.history(with: "crew").map(\.body) == ["from two changes back"])
        try await syncAll(people)
        #expect(try await alice.history(with: "crew").map(\.body) == ["from two changes back"])
        for name in ["alice", "carol"] {
            let setAside = try await people[name]!.messenger.quarantined().map(\.reason)
            #expect(setAside.isEmpty, "\(name): \(setAside)")
        }
        #expect(try await bob.groupSummary("crew").epoch == 3)
        #expect(try await bob.groupReceipts(messageId: sent.id) == (2, 2, 0), "Dave, removed before he could read it, is not counted")
        #expect(try await bob.history(with: "crew").first?.status == .delivered)
        // Dave, removed, got Bob's message too: sealed under a state he held, it is dropped
        // unread, not kept at the relay waiting for a key (with a note at every sync).
        let dave = people["dave"]!
        let atDave = try await dave.messenger.sync()
        #expect(atDave.waitingForGroupKeys == 0, "\(atDave)")
        #expect(relay.stored(for: dave.identity.publicKey).count == 0, "left at the relay")
        #expect(try await dave.messenger.quarantined().isEmpty, "set aside instead of dropped")
        #expect(try await dave.messenger.history(with: "team").allSatisfy { $0.body != "from two changes back" })
    }

    /// Bob missed the state that removed Dave and takes the next one, which
    /// also renamed the group: his message no longer waits for Dave, and the
    /// status he is told names the group as it is now called (a live view
    /// was told the old name, which no longer resolves).
    /// (Time-limited: it reads the live events up to the marker's, and would wait for good without it.)
    @Test(.timeLimit(.minutes(1))) func aStatusMovedByARemovalThatCameWithARenameNamesTheNewName() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, carol = people["carol"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "carol", "dave"])
        try await syncAll(people)
        try await bob.send(text: "waiting for dave", to: "team")
        _ = try await alice.sync()
        _ = try await carol.sync()
        _ = try await bob.sync()
        #expect(try await bob.history(with: "team").first?.status == .sent, "Dave has not read it yet")

        try await alice.removeFromGroup("team", member: "dave")
        await alice.flushOutbox()
        // Bob's client never sees that state: what Alice sent him for it is lost.
        let bobKey = people["bob"]!.identity.publicKey.rawRepresentation
        relay.state.withLock { $0.mailboxes[bobKey] = [] }
        try await alice.renameGroup("team", to: "crew")
        await alice.flushOutbox()

        let events = bob.eventRecords
        _ = try await bob.sync()
        #expect(try await bob.groupSummary("crew").epoch == 3)
        try await bob.send(text: "marker", to: "alice")
        var statuses: [(String, MessageStatus)] = []
        for await record in events {
            guard case let .statusChanged(_, status, contact, _, _) = record.event else { continue }
            if contact == "alice" { break }
            statuses.append((contact, status))
        }
        #expect(statuses.map(\.0) == ["crew"] && statuses.map(\.1) == [.delivered], "\(statuses)")
        #expect(try await bob.history(with: "crew").first?.status == .delivered)
    }

    /// Carol's key reaches Bob only after Alice removed her (her session
    /// with Bob started late), though her message, sent while she was a
    /// member, reached Bob's mailbox before the removal: Bob waits for the
    /// key and shows the message once it comes, as Alice does (a
    /// walkthrough: Bob refused the key of a member no longer listed, and
    /// the message was set aside there for good). What she sends after the
    /// removal stays unread under that same key.
    @Test func aRemovedMembersKeyThatArrivesAfterTheRemovalOpensWhatSheSentBefore() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!, carol = people["carol"]!
        try await alice.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        // Bob does not hold Carol's chain yet: her distribution is still on its way.
        let bobStore = try MessageStore(path: bob.databasePath, key: bob.databaseKey)
        let carolKey = carol.identity.publicKey.rawRepresentation
        try bobStore.database.execute("DELETE FROM sender_chains WHERE member_key = ?", [carolKey])
        let carolStore = try MessageStore(path: carol.databasePath, key: carol.databaseKey)
        let own = try #require(try carolStore.database.query(
            "SELECT chain FROM sender_chains WHERE member_key = ? AND epoch = 1", [carolKey]) { try $0.get(0, as: [UInt8].self) }.first)
        let distribution = try SenderKeyChain.deserialize(own).distribution(from: carol.identity.publicKey)

        try await carol.messenger.send(text: "carol, still a member", to: "team")
        try await alice.removeFromGroup("team", member: "carol")
        _ = try await alice.sync()
        _ = try await bob.messenger.sync()
        _ = try await bob.messenger.sync()
        #expect(try await bob.messenger.history(with: "team").isEmpty, "waits for her key")

        let bobForCarol = try #require(try carolStore.contacts.contact(identityKey: bob.identity.publicKey.rawRepresentation)).name
        try await carol.messenger.seal(.senderKeyDistribution(distribution), to: bobForCarol)
        await carol.messenger.flushOutbox()
        for _ in 0..<2 { _ = try await bob.messenger.sync() }
        #expect(try await bob.messenger.history(with: "team").map(\.body) == ["carol, still a member"])
        #expect(try await alice.history(with: "team").map(\.body).filter { $0 == "carol, still a member" }.count == 1)

        // Carol has not synced: she writes again, after her removal was stored. Bob shows nothing of it.
        try await carol.messenger.send(text: "carol, removed", to: "team")
        for _ in 0..<2 { _ = try await bob.messenger.sync() }
        #expect(try await bob.messenger.history(with: "team").map(\.body) == ["carol, still a member"])
    }

    /// Dave, removed, gives his chain of the earlier state again (as a new
    /// session hands chains over): Alice keeps the states of earlier epochs
    /// for members who are behind, and Dave is in one, but he is not in the
    /// current one, so no chain of his is taken and what he writes under the
    /// one closed at his removal is refused (a review found one kept, for
    /// seven changes).
    @Test func aRemovedMemberCannotGiveItsChainAgainForAnEarlierState() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, dave = people["dave"]!
        try await alice.createGroup(name: "team", members: ["bob", "dave"])
        try await syncAll(people)
        try await alice.removeFromGroup("team", member: "dave")
        _ = try await alice.sync()
        // Dave has not synced: his client still has the group at epoch 1, and his chain.
        let daveStore = try MessageStore(path: dave.databasePath, key: dave.databaseKey)
        let daveKey = dave.identity.publicKey.rawRepresentation
        let stored = try #require(try daveStore.database.query(
            "SELECT chain FROM sender_chains WHERE member_key = ? AND epoch = 1", [daveKey]) { try $0.get(0, as: [UInt8].self) }.first)
        let distribution = try SenderKeyChain.deserialize(stored).distribution(from: dave.identity.publicKey)
        try await dave.messenger.seal(.senderKeyDistribution(distribution), to: "alice")
        await dave.messenger.flushOutbox()
        _ = try await alice.sync()
        let aliceStore = try MessageStore(path: people["alice"]!.databasePath, key: people["alice"]!.databaseKey)
        // His chain of epoch 1 stays, closed at his removal (what he sent before still opens), and no other is taken.
        let kept = try aliceStore.database.query("SELECT count(*) FROM sender_chains WHERE member_key = ?", [daveKey]) { try $0.get(0, as: Int64.self) }
        #expect(kept == [1])
        let closed = try aliceStore.database.query("SELECT closed_at IS NOT NULL FROM closed_member_chains WHERE member_key = ?", [daveKey]) {
            try $0.get(0, as: Int64.self)
        }
        #expect(closed == [1], "closed at the relay's time of alice's first deposit after the removal")
        try await dave.messenger.send(text: "still writing", to: "team")
        _ = try await alice.sync()
        #expect(try await alice.history(with: "team").allSatisfy { $0.body != "still writing" })
    }

    /// Dave, removed, added again and removed again, gives his chain of his
    /// first membership: not kept (a review of a2f2d85: the second removal's
    /// closure would have let it open what he sent while out of the group).
    @Test func aMemberRemovedTwiceCannotGiveAChainOfItsFirstMembership() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, dave = people["dave"]!
        try await alice.createGroup(name: "team", members: ["bob", "dave"])
        try await syncAll(people)
        let daveStore = try MessageStore(path: dave.databasePath, key: dave.databaseKey)
        let daveKey = dave.identity.publicKey.rawRepresentation
        let first = try #require(try daveStore.database.query(
            "SELECT chain FROM sender_chains WHERE member_key = ? AND epoch = 1", [daveKey]) { try $0.get(0, as: [UInt8].self) }.first)
        let distribution = try SenderKeyChain.deserialize(first).distribution(from: dave.identity.publicKey)
        try await alice.removeFromGroup("team", member: "dave")
        try await syncAll(people)
        try await alice.addToGroup("team", members: ["dave"])
        try await syncAll(people)
        try await alice.removeFromGroup("team", member: "dave")
        _ = try await alice.sync()
        try await dave.messenger.seal(.senderKeyDistribution(distribution), to: "alice")
        await dave.messenger.flushOutbox()
        _ = try await alice.sync()
        let aliceStore = try MessageStore(path: people["alice"]!.databasePath, key: people["alice"]!.databaseKey)
        let firstMembership = try aliceStore.database.query("SELECT count(*) FROM sender_chains WHERE member_key = ? AND epoch = 1", [daveKey]) {
            try $0.get(0, as: Int64.self)
        }
        #expect(firstMembership == [0])
    }

    /// Dave, removed, is added again by the admin who removed him: he takes
    /// the new state (Alice was an admin of the state that removed him) and
    /// talks in the group again.
    @Test func aRemovedMemberAddedAgainRejoins() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, dave = people["dave"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "carol", "dave"])
        try await syncAll(people)
        try await alice.removeFromGroup("team", member: "dave")
        try await syncAll(people)
        #expect(try await dave.groupSummary("team").standing == .removed)
        try await alice.addToGroup("team", members: ["dave"])
        try await syncAll(people)
        let atDave = try await dave.groupSummary("team")
        #expect(atDave.standing == .member && atDave.epoch == 3, "\(atDave)")
        try await people["carol"]!.messenger.send(text: "welcome back", to: "team")
        try await syncAll(people)
        #expect(try await dave.history(with: "team").map(\.body).last == "welcome back")
        try await dave.send(text: "glad to be back", to: "team")
        try await syncAll(people)
        #expect(try await alice.history(with: "team").map(\.body).last == "glad to be back")
    }

    /// A disappearing timer or a deletion from someone no longer in the
    /// group changes nothing there (docs/PROTOCOL.md §10.7): a removed
    /// member's timer would change how long everyone's messages live.
    @Test func aRemovedMembersTimerAndDeletionChangeNothing() async throws {
        let (_, people) = try await four()
        let alice = people["alice"]!.messenger, bob = people["bob"]!.messenger, dave = people["dave"]!.messenger
        try await alice.createGroup(name: "team", members: ["bob", "dave"])
        try await syncAll(people)
        let daves = try await dave.send(text: "mine", to: "team")
        try await syncAll(people)
        try await alice.removeFromGroup("team", member: "dave")
        // Dave has not synced: his client still has him in the group.
        try await dave.setDisappearingTimer(3_600, for: "team")
        try await dave.delete(message: daves.id, forEveryone: true)
        _ = try await bob.sync()
        let conversation = try #require(try await bob.groupConversationID("team"))
        #expect(try await bob.disappearingTimer(conversationID: conversation) == nil)
        #expect(try await bob.history(with: "team").map(\.body) == ["mine"])
        #expect(try await bob.history(with: "team").contains { $0.isErased } == false)
    }

    /// A file sent to a group: uploaded once, its pointer encrypted once for
    /// every member, and each member fetches the same bytes.
    @Test func aFileSentToAGroupReachesEveryMember() async throws {
        let (relay, people) = try await four()
        let alice = people["alice"]!, bob = people["bob"]!, carol = people["carol"]!
        try await alice.messenger.createGroup(name: "team", members: ["bob", "carol"])
        try await syncAll(people)
        let bytes = (0..<100_000).map { UInt8($0 % 251) }
        let path = alice.directory.path("map.bin")
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let (message, _) = try await alice.messenger.sendFile(at: path, to: "team")
        #expect(message.status == .sent)
        #expect(relay.state.withLock { $0.blobs.count } == 1)
        try await syncAll(people)
        for member in [bob, carol] {
            let received = try #require(try await member.messenger.attachmentList().first { $0.attachment.direction == .incoming })
            #expect(received.contact == "group:team")
            let out = member.directory.path("map-\(member.name).bin")
            _ = try await member.messenger.fetchAttachment(id: received.attachment.id, to: out)
            #expect(FileManager.default.contents(atPath: out) == Data(bytes))
        }
        #expect(try await alice.messenger.history(with: "team").first?.status == .delivered)
    }
}
