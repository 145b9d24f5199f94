import HushCrypto
import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// A group with a member of two devices (docs/PROTOCOL.md §20.17): the
/// desk creates it after the tablet was linked; its state and chain reach
/// the tablet on the session between the devices, bob's chain reaches both;
/// a group envelope goes to every device of every member; what one of
/// alice's devices sends shows on the other as sent, and reaches bob as
/// alice's.
@Suite struct DeviceGroupTests {
    /// Two rounds of passes, in this order.
    static func syncAll(_ messengers: Messenger...) async throws {
        for _ in 0..<2 {
            for messenger in messengers { _ = try await messenger.sync() }
        }
    }

    /// The group made after the session between alice's devices exists (its state and the desk's
    /// chain follow on it), or before the tablet existed (they go when that session starts).
    @Test(arguments: [("tablet starts", false), ("desk starts", false), ("tablet starts", true), ("desk starts", true)])
    func aGroupWithATwoDeviceMemberWorksBothWays(_ label: String, groupFirst: Bool) async throws {
        let setup = try await InMemoryRelay().linkedAlice(label) { alice, bob in
            guard groupFirst else { return }
            try await alice.messenger.createGroup(name: "team", members: ["bob"])
            _ = try await bob.messenger.sync()
            _ = try await alice.messenger.sync()
        }
        let (alice, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        if !groupFirst { try await alice.createGroup(name: "team", members: ["bob"]) }
        func syncAll() async throws { try await Self.syncAll(bob, alice, tablet) }
        try await syncAll()
        #expect(try await tablet.groupList().map(\.name) == ["team"], "the desk's state reached the tablet")

        try await bob.send(text: "hello both", to: "team")
        try await syncAll()
        #expect(try await alice.history(with: "team").contains { $0.body == "hello both" && $0.direction == .incoming })
        let onTablet = try await tablet.history(with: "team")
        #expect(onTablet.contains { $0.body == "hello both" && $0.direction == .incoming }, "\(onTablet.map(\.body))")

        try await tablet.send(text: "from the tablet", to: "team")
        try await syncAll()
        #expect(try await bob.history(with: "team").contains { $0.body == "from the tablet" && $0.sender == setup.alice.address })
        #expect(try await alice.history(with: "team").contains { $0.body == "from the tablet" && $0.direction == .outgoing })

        try await alice.send(text: "from the desk", to: "team")
        try await syncAll()
        #expect(try await bob.history(with: "team").contains { $0.body == "from the desk" })
        #expect(try await tablet.history(with: "team").contains { $0.body == "from the desk" && $0.direction == .outgoing })
        for messenger in [alice, bob, tablet] {
            let setAside = try await messenger.quarantined().map(\.reason)
            #expect(setAside.isEmpty, "\(setAside)")
        }
    }

    /// Read on one device, read on the others, in a group as in a contact's
    /// conversation (each read receipt goes to its author, a copy to our other
    /// devices); and a group message one device sent moves on to "read" on
    /// the other as the members read it. Before, both stayed as they were on
    /// the device that did not act (a user walkthrough: "trio (1 unread)",
    /// "✓ sent" for good).
    @Test func aGroupReadOnOneDeviceIsReadOnTheOtherAndItsMessagesMoveOnThere() async throws {
        let setup = try await InMemoryRelay().linkedAlice("group read")
        let (alice, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        try await alice.createGroup(name: "team", members: ["bob"])
        func syncAll() async throws { try await Self.syncAll(bob, alice, tablet) }
        try await syncAll()

        try await bob.send(text: "read me once", to: "team")
        try await syncAll()
        #expect(try await alice.history(with: "team").first { $0.body == "read me once" }?.readAt == nil)
        _ = try await tablet.markGroupRead("team")
        try await syncAll()
        let onDesk = try await alice.history(with: "team").first { $0.body == "read me once" }
        #expect(onDesk?.readAt != nil, "read on the tablet, still unread on the desk")

        try await tablet.send(text: "from the tablet", to: "team")
        try await syncAll()
        _ = try await bob.markGroupRead("team")
        try await syncAll()
        let copy = try await alice.history(with: "team").first { $0.body == "from the tablet" }
        #expect(copy?.status == .read, "\(String(describing: copy?.status))")
    }

    /// §20.14: the desk revokes the tablet; the group it administers gets a
    /// new state after the revoking list, so bob's next group message is not
    /// sent to the tablet, and the copy sent to alice's account key does not
    /// open there either.
    @Test func aRevokedDeviceOpensNoGroupMessageSentAfter() async throws {
        let setup = try await InMemoryRelay().linkedAlice("desk starts")
        let (alice, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        try await alice.createGroup(name: "team", members: ["bob"])
        func syncAll() async throws { try await Self.syncAll(bob, alice, tablet) }
        try await syncAll()
        try await bob.send(text: "before", to: "team")
        try await syncAll()
        #expect(try await tablet.history(with: "team").contains { $0.body == "before" })
        let epoch = try await bob.groupSummary("team").epoch

        let deskStore = try MessageStore(path: setup.alice.databasePath, key: setup.alice.databaseKey)
        try deskStore.deviceLists.keep(setup.devices.third.encoded, counter: 3, at: 3)
        try await alice.announceDeviceList()
        let rekey = try await alice.rekeyGroupsAfterRevocation()
        #expect(rekey.rekeyed == 1 && rekey.failed.isEmpty)
        try await syncAll()
        #expect(try await bob.groupSummary("team").epoch == epoch + 1, "bob took the new state")

        let tabletMailbox = setup.relay.stored(for: setup.tabletKey).count
        try await bob.send(text: "after", to: "team")
        #expect(setup.relay.stored(for: setup.tabletKey).count == tabletMailbox, "nothing more goes to the revoked tablet")
        let toAccount = try #require(setup.relay.stored(for: setup.alice.identity.publicKey).last)
        #expect(GroupEnvelope.isGroupEnvelope(toAccount.bytes), "bob's group message, as deposited for alice's account key")
        try await syncAll()
        #expect(try await alice.history(with: "team").contains { $0.body == "after" })
        // Opened by the old secret, it would show (it does without the new state: the rekey is what stops it).
        setup.relay.inject(toAccount.bytes, into: setup.tabletKey)
        _ = try await tablet.sync()
        #expect(try await !tablet.history(with: "team").contains { $0.body == "after" }, "the old secret opens nothing sealed after")
    }

    /// A group bob administers: alice's revocation asks him for the next
    /// state (a rekey request after the revoking list), so the revoked
    /// tablet opens nothing he sends there afterwards. He honours it once
    /// per list that revokes a device: asking again changes nothing.
    @Test func aRevocationAsksTheAdminOfAGroupForANewState() async throws {
        let setup = try await InMemoryRelay().linkedAlice("desk starts")
        let (alice, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        func syncAll() async throws { try await Self.syncAll(bob, alice, tablet) }
        try await bob.createGroup(name: "bobs", members: ["alice"])
        try await syncAll()
        try await bob.send(text: "before", to: "bobs")
        try await syncAll()
        #expect(try await tablet.history(with: "bobs").contains { $0.body == "before" })
        let epoch = try await bob.groupSummary("bobs").epoch

        // Asked without a revocation: bob holds no list of alice's that revokes a device, so nothing changes.
        #expect(try await alice.rekeyGroupsAfterRevocation().asked == 1)
        try await syncAll()
        #expect(try await bob.groupSummary("bobs").epoch == epoch, "a member cannot make the group rekey at will")

        let deskStore = try MessageStore(path: setup.alice.databasePath, key: setup.alice.databaseKey)
        try deskStore.deviceLists.keep(setup.devices.third.encoded, counter: 3, at: 3)
        try await alice.announceDeviceList()
        let rekey = try await alice.rekeyGroupsAfterRevocation()
        #expect(rekey.rekeyed == 0 && rekey.asked == 1 && rekey.failed.isEmpty)
        try await syncAll()
        #expect(try await bob.groupSummary("bobs").epoch == epoch + 1, "bob wrote the next state")
        _ = try await alice.rekeyGroupsAfterRevocation()
        try await syncAll()
        #expect(try await bob.groupSummary("bobs").epoch == epoch + 1, "once per revocation")
        // A later list that revokes nothing new (revoked entries stay in every list) buys no rekey either.
        try deskStore.deviceLists.keep(setup.devices.fourth.encoded, counter: 4, at: 4)
        try await alice.announceDeviceList()
        _ = try await alice.rekeyGroupsAfterRevocation()
        try await syncAll()
        #expect(try await bob.deviceList(ofContact: "alice")?.counter == 4)
        #expect(try await bob.groupSummary("bobs").epoch == epoch + 1, "a list revoking nothing new")

        try await bob.send(text: "after", to: "bobs")
        let toAccount = try #require(setup.relay.stored(for: setup.alice.identity.publicKey).last)
        #expect(GroupEnvelope.isGroupEnvelope(toAccount.bytes))
        try await syncAll()
        #expect(try await alice.history(with: "bobs").contains { $0.body == "after" })
        setup.relay.inject(toAccount.bytes, into: setup.tabletKey)
        _ = try await tablet.sync()
        #expect(try await !tablet.history(with: "bobs").contains { $0.body == "after" }, "the old keys open nothing sealed after")
    }

    /// Large groups stay on the first device (§20.17, "Devices in Hush
    /// today"): a member's chain there is derived from the state, one per
    /// account, so a linked device neither makes one nor sends to one.
    @Test func aLinkedDeviceRefusesLargeGroups() async throws {
        let setup = try await InMemoryRelay().linkedAlice("desk starts")
        do {
            _ = try await setup.tablet.createGroup(name: "big", members: ["bob"], large: true)
            Issue.record("a linked device made a large group")
        } catch let MessengerError.groupRefused(reason) {
            #expect(reason.contains("stay on the account's first device"), "\(reason)")
        }
        #expect(try await setup.tablet.groupList().isEmpty)
        // The first device still makes one.
        #expect(try await setup.alice.messenger.createGroup(name: "big", members: ["bob"], large: true).isLarge)
    }

    /// A group message the tablet wrote, which bob cannot open (the same
    /// envelope again, its key used, as a restored member finds): bob asks
    /// the device whose chain signed it (§20.12: the device that sealed it
    /// alone can send it again), and the tablet seals it again for him
    /// alone. Before, the question went to alice's account key, where the
    /// desk has no record of that envelope, and the message was lost.
    @Test(arguments: ["tablet starts", "desk starts"])
    func aGroupMessageFromALinkedDeviceIsResentByThatDevice(_ label: String) async throws {
        let setup = try await InMemoryRelay().linkedAlice(label)
        let (alice, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        let relay = setup.relay, bobKey = setup.bob.identity.publicKey
        func groupEnvelopes() -> [[UInt8]] { relay.stored(for: bobKey).map(\.bytes).filter(GroupEnvelope.isGroupEnvelope) }
        try await alice.createGroup(name: "team", members: ["bob"])
        try await Self.syncAll(bob, alice, tablet)

        try await tablet.send(text: "from the tablet", to: "team")
        let original = try #require(groupEnvelopes().first)
        _ = try await bob.sync()
        #expect(try await bob.history(with: "team").contains { $0.body == "from the tablet" })
        // Bob's receipts are lost, so neither of alice's devices knows he has it.
        relay.state.withLock { state in
            for mailbox in [setup.alice.identity.publicKey, setup.tabletKey] { state.mailboxes[mailbox.rawRepresentation] = [] }
        }

        relay.inject(original, into: bobKey)
        #expect(try await bob.sync().resendRequested == 1)
        #expect(relay.stored(for: setup.tabletKey).count == 1, "the question went to the tablet, whose chain signed it")
        #expect(relay.stored(for: setup.alice.identity.publicKey).count == 0, "not to the account key")
        _ = try await alice.sync()
        _ = try await tablet.sync()
        let resent = groupEnvelopes()
        #expect(resent.count == 1 && resent.first != original, "the tablet sealed it again for bob")
        _ = try await bob.sync()
        #expect(try await bob.history(with: "team").filter { $0.body == "from the tablet" }.count == 1, "stored once, whatever the copies")
        for messenger in [alice, bob, tablet] {
            let setAside = try await messenger.quarantined().map(\.reason)
            #expect(setAside.count == (messenger === bob ? 1 : 0), "\(setAside)")
        }
    }

    /// The other way: bob's group message does not open on alice's tablet,
    /// which asks bob from its device; bob seals it again for that device
    /// alone, though alice's desk confirmed it. Before, a question from a
    /// contact's device about a group envelope went unanswered.
    @Test func aLinkedDeviceThatCannotOpenAGroupMessageGetsItAgain() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (alice, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        let relay = setup.relay
        func groupEnvelopes() -> [[UInt8]] { relay.stored(for: setup.tabletKey).map(\.bytes).filter(GroupEnvelope.isGroupEnvelope) }
        try await bob.createGroup(name: "bobs", members: ["alice"])
        try await Self.syncAll(bob, alice, tablet)

        let sent = try await bob.send(text: "from bob", to: "bobs")
        let original = try #require(groupEnvelopes().first)
        _ = try await tablet.sync()
        _ = try await alice.sync()
        _ = try await bob.sync()
        #expect(try await bob.groupReceipts(messageId: sent.id).delivered == 1, "alice's devices confirmed it")

        relay.inject(original, into: setup.tabletKey)
        #expect(try await tablet.sync().resendRequested == 1)
        _ = try await bob.sync()
        let resent = groupEnvelopes()
        #expect(resent.count == 1 && resent.first != original, "bob sealed it again for the tablet")
        #expect(relay.stored(for: setup.alice.identity.publicKey).map(\.bytes).filter(GroupEnvelope.isGroupEnvelope).count == 0,
                "for the device that asked alone")
        _ = try await tablet.sync()
        #expect(try await tablet.history(with: "bobs").filter { $0.body == "from bob" }.count == 1)
    }

    /// A group bob administers, made after alice linked her tablet: its
    /// state reaches both of her devices from bob, both read and write in
    /// it; when one of her devices leaves, the other leaves too.
    @Test func aContactsGroupReachesBothDevicesAndALeaveFollows() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (alice, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        func syncAll() async throws { try await Self.syncAll(bob, alice, tablet) }
        try await bob.createGroup(name: "bobs", members: ["alice"])
        try await syncAll()
        #expect(try await tablet.groupList().map(\.name) == ["bobs"])
        try await bob.send(text: "in bob's group", to: "bobs")
        try await tablet.send(text: "the tablet in bob's group", to: "bobs")
        try await syncAll()
        #expect(try await tablet.history(with: "bobs").contains { $0.body == "in bob's group" })
        #expect(try await alice.history(with: "bobs").contains { $0.body == "the tablet in bob's group" && $0.direction == .outgoing })
        #expect(try await bob.history(with: "bobs").contains { $0.body == "the tablet in bob's group" })

        try await tablet.leaveGroup("bobs")
        try await syncAll()
        #expect(try await alice.groupSummary("bobs").standing == .left, "the desk left with the tablet")
        #expect(try await bob.groupSummary("bobs").members.count == 1, "bob wrote the state without alice")
    }

    /// Two devices of one admin change the group at once, neither having
    /// seen the other's change (both write the same epoch): every device
    /// and member ends on the same state, the one with the lower digest
    /// (docs/PROTOCOL.md §18.2), and the group still works both ways: the
    /// state from the other device is checked as an admin's (our account is
    /// the admin of the state both followed).
    @Test func concurrentChangesFromTwoDevicesOfOneAdminConverge() async throws {
        let setup = try await InMemoryRelay().linkedAlice("concurrent changes")
        let (alice, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        try await alice.createGroup(name: "team", members: ["bob"])
        func syncAll() async throws { try await Self.syncAll(bob, alice, tablet) }
        try await syncAll()
        #expect(try await tablet.groupList().map(\.name) == ["team"])

        try await alice.renameGroup("team", to: "desk-name")
        try await tablet.renameGroup("team", to: "tablet-name")
        try await syncAll()
        try await syncAll()
        let views = try await [alice.groupList(), tablet.groupList(), bob.groupList()].map { try #require($0.first) }
        #expect(Set(views.map(\.epoch)) == [2], "\(views)")
        #expect(Set(views.map(\.name)).count == 1, "\(views.map(\.name))")

        let name = views[2].name
        try await bob.send(text: "after the race", to: name)
        try await tablet.send(text: "from the tablet", to: views[1].name)
        try await syncAll()
        #expect(try await alice.history(with: views[0].name).contains { $0.body == "after the race" })
        #expect(try await tablet.history(with: views[1].name).contains { $0.body == "after the race" })
        #expect(try await bob.history(with: name).contains { $0.body == "from the tablet" })
        #expect(try await alice.history(with: views[0].name).contains { $0.body == "from the tablet" && $0.direction == .outgoing })
        for messenger in [alice, bob, tablet] {
            let setAside = try await messenger.quarantined().map(\.reason)
            #expect(setAside.isEmpty, "\(setAside)")
        }
    }
}
