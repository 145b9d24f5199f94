import HushCrypto
import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// Nothing is lost between a contact and a linked device (docs/PROTOCOL.md
/// §20.12): when both start a session at once (the contact from the
/// device's bundle after a pass, the device when it first writes), the
/// first message of the session that loses the tie-break is refused; the
/// receiver reports it to the device that sealed it, on the session it
/// holds with that device, and that device seals it again there.
@Suite struct DeviceResendTests {
    @Test(arguments: ["crossed 1", "crossed 2", "crossed 3", "crossed 4"])
    func crossedFirstMessagesWithADeviceAreBothRead(_ seed: String) async throws {
        let relay = InMemoryRelay()
        // The tablet started its session with bob when it added him; bob starts his with the tablet
        // after his first pass, once the desk's list named it.
        let setup = try await relay.linkedAlice(seed, settled: false)
        let (alice, bob, tablet) = (setup.alice, setup.bob, setup.tablet)

        // Each writes first on its own session: the two first messages cross.
        try await bob.messenger.send(text: "from bob", to: "alice")
        try await tablet.send(text: "from the tablet", to: "bob")
        for _ in 0..<3 {
            _ = try await bob.messenger.sync()
            _ = try await tablet.sync()
        }
        #expect(try await bob.messenger.history(with: "alice").contains { $0.body == "from the tablet" }, "bob lost the tablet's message")
        #expect(try await tablet.history(with: "bob").contains { $0.body == "from bob" }, "the tablet lost bob's message")
        // What the losing session carried was set aside and its sender asked again: events that say the
        // message should follow (a notice in `hush chat`), not that something was lost.
        let setAside = try await (bob.messenger.loggedEvents(after: 0, limit: 1_000) + tablet.loggedEvents(after: 0, limit: 1_000))
            .map(\.entry.kind).filter { $0 == .quarantined || $0 == .awaitingResend }
        #expect(setAside.contains(.awaitingResend) && !setAside.contains(.quarantined), "\(setAside)")

        // Typing goes to every device too, each on its own session (§20.12).
        try await bob.messenger.sendTyping(true, to: "alice")
        let typedTo = relay.state.withLock { Set($0.ephemeralRecipients) }
        #expect(typedTo == [alice.identity.publicKey.rawRepresentation, setup.tabletKey.rawRepresentation])
    }

    /// A device that refuses the account's delivery credential (it
    /// registered another: devices register theirs apart) gets the envelope
    /// without one, and the credential the account gave is kept for the
    /// account's other mailboxes.
    @Test func aDeviceRefusingTheCredentialKeepsTheAccountsOne() async throws {
        let relay = InMemoryRelay()
        let setup = try await relay.linkedAlice("desk starts")
        let (bob, tablet) = (setup.bob.messenger, setup.tablet)
        #expect(try await bob.deliveryCredentialKnown(for: "alice"))
        relay.state.withLock { $0.refusingCredentials = [setup.tabletKey.rawRepresentation] }
        try await bob.send(text: "past the old credential", to: "alice")
        _ = try await tablet.sync()
        #expect(try await tablet.history(with: "bob").contains { $0.body == "past the old credential" })
        #expect(try await bob.deliveryCredentialKnown(for: "alice"), "the account's credential was forgotten for one device's refusal")
    }
}

/// A receipt from any device confirms a message for the account (§20.12),
/// but says nothing about the first device: when the tablet confirmed it
/// and the desk cannot open it, the desk's question (on the account-key
/// session) is answered all the same. Before, bob saw "delivered" and
/// answered nothing, and the desk never had it.
@Suite struct ConfirmedElsewhereResendTests {
    static func ownEnvelopes(_ relay: InMemoryRelay, _ key: IdentityKey, group: Bool) -> [[UInt8]] {
        relay.stored(for: key).map(\.bytes).filter { GroupEnvelope.isGroupEnvelope($0) == group }
    }

    @Test func aMessageTheTabletConfirmedIsResentToTheDesk() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (desk, bob, tablet, relay) = (setup.alice.messenger, setup.bob.messenger, setup.tablet, setup.relay)
        let deskKey = setup.alice.identity.publicKey
        let sent = try await bob.send(text: "confirmed by the tablet", to: "alice")
        let original = try #require(relay.stored(for: deskKey).last?.bytes)
        _ = try await tablet.sync()
        _ = try await bob.sync()
        #expect(try await bob.history(with: "alice").first { $0.id == sent.id }?.status == .delivered)

        _ = try await desk.sync()
        relay.state.withLock { $0.mailboxes[setup.bob.identity.publicKey.rawRepresentation] = [] }
        relay.inject(original, into: deskKey)
        #expect(try await desk.sync().resendRequested == 1)
        let before = relay.stored(for: deskKey).count
        _ = try await bob.sync()
        #expect(relay.stored(for: deskKey).count > before, "bob sealed it again for the desk")
    }

    @Test func aGroupMessageTheTabletConfirmedIsResentToTheDesk() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (desk, bob, tablet, relay) = (setup.alice.messenger, setup.bob.messenger, setup.tablet, setup.relay)
        let deskKey = setup.alice.identity.publicKey
        try await bob.createGroup(name: "bobs", members: ["alice"])
        try await DeviceGroupTests.syncAll(bob, desk, tablet)
        let sent = try await bob.send(text: "to the group", to: "bobs")
        let original = try #require(Self.ownEnvelopes(relay, deskKey, group: true).last)
        _ = try await tablet.sync()
        _ = try await bob.sync()
        #expect(try await bob.groupReceipts(messageId: sent.id).delivered == 1, "the tablet confirmed it for alice")

        _ = try await desk.sync()
        relay.state.withLock { $0.mailboxes[setup.bob.identity.publicKey.rawRepresentation] = [] }
        relay.inject(original, into: deskKey)
        #expect(try await desk.sync().resendRequested == 1)
        _ = try await bob.sync()
        let resent = Self.ownEnvelopes(relay, deskKey, group: true)
        #expect(resent.count == 1 && resent.first != original, "bob sealed it again for the desk")
    }
}
