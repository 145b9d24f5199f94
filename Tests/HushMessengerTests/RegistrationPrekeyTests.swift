import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushTesting
import Testing

/// How many one-time prekeys a registration publishes: a full batch of each
/// kind by default, fewer when asked (a client that only writes first), and a
/// client registered without any can still be written to first (the
/// last-resort prekeys) and tops its batch up at its next sync.
@Suite struct RegistrationPrekeyTests {
    private func oneTimeCounts(of participant: Participant, at relay: InMemoryRelay) -> (x25519: Int, kem: Int) {
        relay.state.withLock { state in
            let oneTime = state.bundles[participant.identity.publicKey.rawRepresentation]?.oneTime ?? []
            return (oneTime.count { $0.kind == .oneTimeX25519 }, oneTime.count { $0.kind == .oneTimeKEM })
        }
    }

    @Test func aRegistrationPublishesAFullBatchOfEachKindByDefault() async throws {
        let relay = InMemoryRelay()
        let carol = try Participant("carol", relay: relay)
        try await carol.messenger.register()
        let counts = oneTimeCounts(of: carol, at: relay)
        #expect(counts.x25519 == PrekeyPolicy.batchSize && counts.kem == PrekeyPolicy.batchSize)
    }

    @Test func aClientRegisteredWithoutOneTimePrekeysIsStillReachedFirstAndTopsUpAtItsSync() async throws {
        let relay = InMemoryRelay()
        let carol = try Participant("carol", relay: relay), dave = try Participant("dave", relay: relay)
        try await carol.messenger.register(oneTimePrekeys: 0)
        try await dave.messenger.register(oneTimePrekeys: 3)
        #expect(oneTimeCounts(of: carol, at: relay) == (0, 0))
        #expect(oneTimeCounts(of: dave, at: relay) == (3, 3))

        // Dave writes to carol first: her bundle has only its last-resort prekeys.
        try await dave.messenger.addContact(name: "carol", address: carol.address)
        try await dave.messenger.send(text: "hello carol", to: "carol")
        _ = try await carol.messenger.sync()
        let request = try #require(try await carol.messenger.messageRequests().first)
        #expect(request.lastMessage?.body == "hello carol")
        // Her sync found fewer than the refill mark at the relay and uploaded a batch.
        #expect(oneTimeCounts(of: carol, at: relay) == (PrekeyPolicy.batchSize, PrekeyPolicy.batchSize))
    }
}
