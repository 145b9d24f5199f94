import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// A device's question about a group message is answered only for a
/// message its member was sent (the receipt row written when it went out,
/// docs/PROTOCOL.md §20.12): a member's device that holds a digest of a
/// message sent before the member joined gets nothing, however it came by
/// the digest. A message sent after it joined is sealed again for that
/// device, though the member confirmed it (another device may have).
@Suite struct ForgedResendRequestTests {
    @Test func aDeviceGetsOnlyWhatItsMemberWasSent() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (alice, bob, tablet, relay) = (setup.alice.messenger, setup.bob.messenger, setup.tablet, setup.relay)
        let carol = try Participant("carol", relay: relay, clock: setup.alice.clock)
        try await carol.messenger.register()
        try await carol.messenger.addContact(name: "bob", address: setup.bob.address)
        try await carol.messenger.send(text: "hello bob", to: "bob")
        _ = try await bob.sync()
        try await bob.addContact(name: "carol", address: carol.address)
        _ = try await carol.messenger.sync()

        try await bob.createGroup(name: "club", members: ["carol"])
        try await DeviceGroupTests.syncAll(bob, carol.messenger)
        try await bob.send(text: "before alice joined", to: "club")
        let before = try #require(relay.stored(for: carol.identity.publicKey).map(\.bytes).last(where: GroupEnvelope.isGroupEnvelope))
        try await bob.addToGroup("club", members: ["alice"])
        try await DeviceGroupTests.syncAll(bob, alice, tablet, carol.messenger)
        try await bob.send(text: "after alice joined", to: "club")
        let after = try #require(relay.stored(for: setup.tabletKey).map(\.bytes).last(where: GroupEnvelope.isGroupEnvelope))
        try await DeviceGroupTests.syncAll(tablet, alice, bob)

        func groupEnvelopesAtTablet() -> Int { relay.stored(for: setup.tabletKey).map(\.bytes).filter(GroupEnvelope.isGroupEnvelope).count }
        // The tablet asks about the message sent before alice joined: nothing comes.
        _ = try await tablet.seal(.decryptionError(envelopeDigest: SHA256.hash(before)), to: "bob")
        await tablet.flushOutbox()
        _ = try await bob.sync()
        #expect(groupEnvelopesAtTablet() == 0, "a message alice was never sent is not sealed for her device")
        // About the one sent after: it is sealed again for the tablet.
        _ = try await tablet.seal(.decryptionError(envelopeDigest: SHA256.hash(after)), to: "bob")
        await tablet.flushOutbox()
        _ = try await bob.sync()
        #expect(groupEnvelopesAtTablet() == 1, "sealed again for the device that asked")
    }
}
