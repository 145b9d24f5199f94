import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushStore
import Testing

/// One home per key (docs/PROTOCOL.md §19.4): a home that holds no record of
/// its own registration (made by an older client) takes the relay's as its
/// own while the signed prekey held is its own, and a home whose key another
/// home registered since (a restore, with a signed prekey of its own) stops:
/// no sync, no send, no registering again.
@Suite struct HomeRegistrationTests {
    private func forgetRecordedRegistration(of participant: Participant) throws {
        let store = try MessageStore(path: participant.databasePath, key: participant.databaseKey)
        try store.settings.set(SettingsRepository.Name.registeredAt, to: nil)
    }

    private func recordedRegistration(of participant: Participant) throws -> String? {
        try MessageStore(path: participant.databasePath, key: participant.databaseKey).settings.value(SettingsRepository.Name.registeredAt)
    }

    @Test func anOlderHomeAdoptsItsOwnRegistrationAndIsCutOffByARestoredOne() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let registered = try #require(try recordedRegistration(of: alice))

        // As an older client left it: registered, with no record of when.
        try forgetRecordedRegistration(of: alice)
        let upgraded = try alice.reopened(relay: relay)
        _ = try await bob.messenger.send(text: "read only after the restore", to: "alice")
        _ = try await upgraded.sync()
        #expect(try recordedRegistration(of: alice) == registered, "the relay's registration, with our signed prekey, is taken as ours")

        // The account is restored elsewhere: the same key, a signed prekey of the restored home's own.
        let restored = try Participant("alice-restored", relay: relay, seed: "identity-alice")
        try await restored.messenger.register(renewingPrekeys: true)
        // Even a home without a record of its registration sees that the signed prekey held is not its own.
        try forgetRecordedRegistration(of: alice)
        let old = try alice.reopened(relay: relay)
        func expectReplaced(_ operation: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
            do {
                try await operation()
                Issue.record("the replaced home went on", sourceLocation: sourceLocation)
            } catch let error as MessengerError {
                guard case .homeReplaced = error else { Issue.record("\(error)", sourceLocation: sourceLocation); return }
            } catch { Issue.record("\(error)", sourceLocation: sourceLocation) }
        }
        // Its first send is sealed and committed before the relay is asked (a relay that hangs
        // must lose nothing), finds the home replaced there, posts nothing, and shows as failed.
        await expectReplaced { _ = try await old.send(text: "from the old home", to: "bob") }
        #expect(try await old.history(with: "bob").filter { $0.body == "from the old home" }.map(\.status) == [.failed])
        #expect(try await old.outbox().map(\.status) == [.failed])
        await expectReplaced { _ = try await old.sync() }
        await expectReplaced { try await old.register() }
        await expectReplaced { _ = try await old.send(text: "once it knows", to: "bob") }
        #expect(try await old.history(with: "bob").allSatisfy { $0.body != "once it knows" }, "refused before it was sealed")
        await expectReplaced { _ = try await old.retry(requestID: nil) }
        await expectReplaced { _ = try await old.startMissingSessions() }
        // Reading still works, and seals no read receipt for a relay that serves another home.
        #expect(try await old.markRead(contact: "bob") == 1)
        #expect(try await old.outbox().count == 1, "only the failed send")
        // A new run of the old home knows it without asking the relay.
        await expectReplaced { _ = try await alice.reopened(relay: relay).sync() }

        // The restored home is the one the relay serves.
        _ = try await restored.messenger.sync()
        _ = bob
    }

    /// Two processes of one home: one registers again (`hush register`) while
    /// the other compares (its socket closed by that registration) before the
    /// first has heard back and recorded the new time. The registration is
    /// its own home's: nothing is replaced (it was, for good, before the record
    /// was put past the registration ahead of sending it).
    @Test func aRegistrationByAnotherProcessOfTheSameHomeReplacesNothing() async throws {
        let relay = InMemoryRelay()
        let (alice, _) = try await relay.acquaintedPair()
        let registering = try alice.reopened(relay: relay), comparing = try alice.reopened(relay: relay)
        relay.afterRegistration.withLock { $0 = { _ = try? await comparing.sync() } }
        try await registering.register()
        relay.afterRegistration.withLock { $0 = nil }
        #expect(await comparing.homeReplacedAt() == nil)
        _ = try await comparing.sync()
        _ = try await alice.reopened(relay: relay).sync()
    }

    /// The relay is not trusted: a signed prekey it names that the key did not
    /// sign (a lying or broken relay) is no other home's registration, and
    /// cuts nothing off.
    @Test func aSignedPrekeyTheKeyDidNotSignReplacesNothing() async throws {
        let relay = InMemoryRelay()
        let (alice, _) = try await relay.acquaintedPair()
        let forged = try SignedPrekey(kind: .signedX25519, id: 9, publicKey: Array(repeating: 7, count: 32),
                                      signature: Array(repeating: 1, count: 64))
        relay.state.withLock { $0.bundles[alice.identity.publicKey.rawRepresentation]?.signed = forged }
        let home = try alice.reopened(relay: relay)
        _ = try await home.sync()
        #expect(await home.homeReplacedAt() == nil)
    }
}
