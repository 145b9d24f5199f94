import Foundation
import HushCrypto
import HushMessenger
import HushProtocol
import HushStore
import HushTesting
import Testing

/// What one device of an account sends shows on its others (docs/PROTOCOL.md
/// §20.11, §20.12): a sent transcript on the session between the two
/// devices, applied as an outgoing message of the same conversation; a read
/// receipt marks the messages read on both.
@Suite struct SentTranscriptTests {
    @Test(arguments: ["tablet starts", "desk starts"])
    func whatOneDeviceSendsShowsOnTheOther(_ label: String) async throws {
        let setup = try await InMemoryRelay().linkedAlice(label)
        let (alice, bob, tablet) = (setup.alice, setup.bob, setup.tablet)
        // Whichever of the two started the session between them (the lower key at the relay) sent the
        // list on it at once: each holds it after the passes above, and the first text copies already.
        try await tablet.send(text: "one from the tablet", to: "bob")
        _ = try await alice.messenger.sync()
        try await alice.messenger.send(text: "two from the desk", to: "bob")
        _ = try await tablet.sync()

        let onDesk = try await alice.messenger.history(with: "bob")
        let fromTablet = try #require(onDesk.first { $0.body == "one from the tablet" }, "\(onDesk.map(\.body))")
        #expect(fromTablet.direction == .outgoing && fromTablet.sender == alice.address && fromTablet.status == .sent)
        // Told as a message that arrived (an open chat draws it), logged with the change.
        let logged = try await alice.messenger.loggedEvents(after: 0, limit: 1_000)
        #expect(logged.contains { $0.entry.kind == .received && $0.entry.messageId == fromTablet.id })
        let onTablet = try await tablet.history(with: "bob")
        let fromDesk = try #require(onTablet.first { $0.body == "two from the desk" }, "\(onTablet.map(\.body))")
        #expect(fromDesk.direction == .outgoing)
        #expect(try await alice.messenger.messageRequests().isEmpty, "our own devices are no strangers")
        #expect(try await tablet.messageRequests().isEmpty)
        #expect(try await alice.messenger.conversations().count == 1)
        #expect(try await tablet.conversations().count == 1)

        // Bob has both, under alice.
        _ = try await bob.messenger.sync()
        let onBob = Set(try await bob.messenger.history(with: "alice").map(\.body))
        #expect(onBob.isSuperset(of: ["one from the tablet", "two from the desk"]), "\(onBob)")
    }

    @Test(arguments: ["tablet starts", "desk starts"])
    func readOnOneDeviceIsReadOnTheOther(_ label: String) async throws {
        let setup = try await InMemoryRelay().linkedAlice(label)
        let (alice, bob, tablet) = (setup.alice, setup.bob, setup.tablet)
        _ = try await bob.messenger.sync()
        try await bob.messenger.send(text: "read me", to: "alice")
        _ = try await alice.messenger.sync()
        _ = try await tablet.sync()
        #expect(try await tablet.conversations().first?.unreadCount == 1)
        #expect(try await alice.messenger.markRead(contact: "bob") == 1)
        _ = try await tablet.sync()
        #expect(try await tablet.conversations().first?.unreadCount == 0, "read on the desk, read on the tablet")
        let read = try #require(try await tablet.history(with: "bob").first { $0.body == "read me" })
        #expect(read.direction == .incoming)
    }

    /// A device that no longer holds the session another of ours writes on
    /// (restored from a backup, which keeps none) sets that envelope aside
    /// and starts a new session after the pass, whichever key is lower; the
    /// other takes it, and what it copies next arrives.
    @Test func aDeviceThatLostTheSessionStartsANewOne() async throws {
        // The tablet's key is the lower: it started the session, and the desk would never start one.
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let (alice, tablet) = (setup.alice, setup.tablet)
        try await tablet.send(text: "one", to: "bob")
        _ = try await alice.messenger.sync()
        // The desk answers on it, so the tablet's next envelopes carry no handshake.
        try await alice.messenger.send(text: "answer", to: "bob")
        _ = try await tablet.sync()

        let deskStore = try MessageStore(path: alice.databasePath, key: alice.databaseKey)
        try deskStore.database.execute("DELETE FROM own_device_sessions")
        try await tablet.send(text: "two", to: "bob")
        let lost = try await alice.messenger.sync()
        #expect(lost.quarantined == 1, "\(lost)")
        _ = try await tablet.sync()
        try await tablet.send(text: "three", to: "bob")
        _ = try await alice.messenger.sync()
        let onDesk = try await alice.messenger.history(with: "bob").map(\.body)
        #expect(onDesk.contains("three"), "\(onDesk)")
    }

    /// What another device sent takes its place among the conversation's
    /// messages, by the relay's id of the transcript, as a sent message
    /// does by its own. Before, a copy had no relay id and sorted after
    /// everything, for good: the desk showed bob's answer above the
    /// tablet's message it answered.
    @Test(arguments: ["tablet starts", "desk starts"])
    func aCopyTakesItsPlaceInTheConversation(_ label: String) async throws {
        let setup = try await InMemoryRelay().linkedAlice(label)
        let (desk, bob, tablet) = (setup.alice.messenger, setup.bob.messenger, setup.tablet)
        try await tablet.send(text: "one, from the tablet", to: "bob")
        _ = try await bob.sync()
        try await bob.send(text: "two, from bob", to: "alice")
        try await desk.send(text: "three, from the desk", to: "bob")
        for messenger in [desk, tablet] { _ = try await messenger.sync() }
        for (device, messenger) in [("desk", desk), ("tablet", tablet)] {
            let shown = try await messenger.history(with: "bob").map(\.body).filter { $0.contains(", from") }
            #expect(shown == ["one, from the tablet", "two, from bob", "three, from the desk"], "\(device): \(shown)")
        }
    }

    /// A file the tablet sent is the account's on the desk too: listed as
    /// sent (to bob), though the desk downloads it like a received one.
    /// Before, `hush attachments` on the desk said it came from bob.
    @Test func aFileSentFromTheTabletIsTheAccountsOnTheDesk() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let path = setup.tabletDirectory.path("notes.bin")
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: URL(fileURLWithPath: path))
        _ = try await setup.tablet.sendFile(at: path, to: "bob")
        _ = try await setup.alice.messenger.sync()
        let onDesk = try await setup.alice.messenger.attachmentList()
        #expect(onDesk.count == 1 && onDesk.first?.contact == "bob")
        #expect(onDesk.first?.attachment.sentByUs == true, "sent by the account")
        #expect(onDesk.first?.attachment.direction == .incoming && onDesk.first?.attachment.state == .available, "downloaded here like a received one")
        let fetched = try await setup.alice.messenger.fetchAttachment(id: try #require(onDesk.first).attachment.id,
                                                                       to: setup.alice.directory.path("notes.out"))
        #expect(fetched.state == .ready)
        #expect(try Data(contentsOf: URL(fileURLWithPath: setup.alice.directory.path("notes.out"))) == bytes)
    }
}
