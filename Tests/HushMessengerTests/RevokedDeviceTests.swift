import HushCrypto
import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// A revoked device learns it (docs/PROTOCOL.md §20.14): the revoking
/// device seals the list to it too, on the session between them, which
/// then ends. Holding a list that revokes it, the device writes nothing
/// more (every contact holding that list sets it aside) and says why.
/// Before, it learnt nothing and went on "sending" what bob set aside.
@Suite struct RevokedDeviceTests {
    static func isRevoked(_ error: any Error) -> Bool {
        if case .deviceRevoked? = error as? MessengerError { return true }
        return false
    }

    @Test(arguments: ["tablet starts", "desk starts"])
    func aRevokedDeviceLearnsItAndWritesNothingMore(_ label: String) async throws {
        let setup = try await InMemoryRelay().linkedAlice(label)
        let (alice, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        try await alice.createGroup(name: "team", members: ["bob"])
        try await DeviceGroupTests.syncAll(bob, alice, tablet)
        let written = try await tablet.send(text: "before", to: "bob")
        try await bob.send(text: "unread on the tablet", to: "alice")
        _ = try await tablet.sync()

        // Written while the relay could not be reached: it waits in the outbox when the list comes.
        setup.relay.state.withLock { $0.depositFailures = Array(repeating: .unavailable(reason: "offline"), count: 8) }
        let waiting = try await tablet.send(text: "queued while offline", to: "bob")
        setup.relay.state.withLock { $0.depositFailures = [] }
        #expect(waiting.status == .pending)

        let deskStore = try MessageStore(path: setup.alice.databasePath, key: setup.alice.databaseKey)
        try deskStore.deviceLists.keep(setup.devices.third.encoded, counter: 3, at: 3)
        try await alice.announceDeviceList()
        #expect(try deskStore.ownDeviceSessions.load(deviceKey: setup.tabletKey.rawRepresentation)?.count == 0,
                "the desk's session with the tablet ended once the list went")
        _ = try await tablet.sync()

        await #expect { try await tablet.send(text: "to bob", to: "bob") } throws: { Self.isRevoked($0) }
        await #expect { try await tablet.send(text: "to the team", to: "team") } throws: { Self.isRevoked($0) }
        await #expect { try await tablet.react(toMessage: written.id, emoji: "👍") } throws: { Self.isRevoked($0) }
        // Nor does it make, rename or leave a group, or set a display name, "done" here and posted nowhere.
        await #expect { _ = try await tablet.createGroup(name: "mine", members: ["bob"]) } throws: { Self.isRevoked($0) }
        await #expect { _ = try await tablet.renameGroup("team", to: "renamed") } throws: { Self.isRevoked($0) }
        await #expect { try await tablet.leaveGroup("team") } throws: { Self.isRevoked($0) }
        await #expect { _ = try await tablet.setDisplayName("not me") } throws: { Self.isRevoked($0) }
        #expect(try await tablet.outbox().filter { $0.status == .pending }.isEmpty, "nothing waits to be sent")
        // What waited is given up with the reason, and open views are told (the logged status event).
        #expect(try await tablet.history(with: "bob").first { $0.id == waiting.id }?.status == .failed)
        let failed = try await tablet.loggedEvents(after: 0, limit: 500).filter { $0.entry.kind == .statusChanged }.compactMap(\.entry.detail)
        #expect(failed.contains("failed"), "\(failed)")
        // What it holds stays readable; reading it sends bob nothing (a read receipt from a revoked
        // device would be set aside there, and make bob's sync report it), nor does typing.
        let bobMailbox = setup.relay.stored(for: setup.bob.identity.publicKey).count
        #expect(try await tablet.history(with: "bob").contains { $0.body == "before" })
        let typedBefore = setup.relay.state.withLock { $0.ephemeralRecipients.count }
        #expect(try await tablet.markRead(contact: "bob") == 1)
        await tablet.flushOutbox()
        try await tablet.sendTyping(true, to: "bob")
        #expect(setup.relay.stored(for: setup.bob.identity.publicKey).count == bobMailbox, "nothing reached bob")
        #expect(setup.relay.state.withLock { $0.ephemeralRecipients.count } == typedBefore, "no typing either")
        #expect(try await tablet.outbox().filter { $0.status == .pending }.isEmpty)
        // The desk goes on.
        try await alice.send(text: "from the desk", to: "bob")
        _ = try await bob.sync()
        #expect(try await bob.history(with: "alice").contains { $0.body == "from the desk" })
    }
}
