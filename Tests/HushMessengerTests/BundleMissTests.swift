import HushCrypto
import HushMessenger
import HushStore
import HushTesting
import Testing

/// A device the relay had no bundle for is asked for again after a while,
/// not at every pass and not never (docs/PROTOCOL.md §20.11, "Devices in
/// Hush today"): one messenger lives for days in `hush daemon`, and a
/// contact's device that registers late must still be reached.
@Suite struct BundleMissTests {
    @Test func aDeviceThatRegistersLaterIsReachedWithoutARestart() async throws {
        let setup = try await InMemoryRelay().linkedAlice("tablet starts")
        let bob = setup.bob, relay = setup.relay, tablet = setup.tabletKey.rawRepresentation
        let bobStore = try MessageStore(path: bob.databasePath, key: bob.databaseKey)
        let alice = try #require(try bobStore.contacts.contact(identityKey: setup.alice.identity.publicKey.rawRepresentation))
        func holdsSession() throws -> Bool { try bobStore.deviceSessions.load(contactId: alice.id, deviceKey: tablet) != nil }
        #expect(try holdsSession())

        // Bob loses his session with the tablet while the relay has no bundle for it (its registration went).
        try bobStore.database.execute("DELETE FROM device_sessions WHERE contact_id = ? AND device_key = ?", [alice.id, tablet])
        let bundle = try #require(relay.state.withLock { $0.bundles.removeValue(forKey: tablet) })
        _ = try await bob.messenger.sync()
        #expect(try !holdsSession(), "no bundle, no session")

        // The tablet registers again: within ten minutes bob does not ask again.
        relay.state.withLock { $0.bundles[tablet] = bundle }
        bob.clock.advance(seconds: 9 * 60)
        _ = try await bob.messenger.sync()
        #expect(try !holdsSession(), "asked again only after ten minutes")

        // Once they have passed, the same messenger asks and starts its session.
        bob.clock.advance(seconds: 60)
        _ = try await bob.messenger.sync()
        #expect(try holdsSession(), "reached without a restart")
    }
}
