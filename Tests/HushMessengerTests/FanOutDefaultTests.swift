import HushCrypto
import HushMessenger
import HushProtocol
import Synchronization
import Testing

/// `RelayTransport.depositFanOut`'s default: one `deposit` per recipient, in
/// order, a refusal per recipient, a relay failure for the whole call.
@Suite struct FanOutDefaultTests {
    /// Answers deposits from a script, keyed by recipient; records the calls.
    final class ScriptedDeposits: RelayTransport {
        let answers: [IdentityKey: Result<DepositReceipt, DeliveryFailure>]
        let calls = Mutex<[(IdentityKey, String, [UInt8]?)]>([])

        init(answers: [IdentityKey: Result<DepositReceipt, DeliveryFailure>]) { self.answers = answers }

        func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                     credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt {
            calls.withLock { $0.append((recipient, requestID, credential)) }
            guard let answer = answers[recipient] else { throw .rejected(status: 404, code: "not_found") }
            return try answer.get()
        }

        func authenticate(identity: IdentityKeyPair) async throws(DeliveryFailure) {}
        func register(identity: IdentityKeyPair, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                      oneTimePrekeys: [SignedPrekey]) async throws(DeliveryFailure) -> Int64 { 0 }
        func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(DeliveryFailure) -> (x25519: Int, kem: Int) { (0, 0) }
        func prekeyCounts() async throws(DeliveryFailure) -> (x25519: Int, kem: Int, registration: HeldRegistration?) { (0, 0, nil) }
        func fetchBundle(for identity: IdentityKey) async throws(DeliveryFailure) -> PrekeyBundle { throw .unavailable(reason: "none") }
        func updateDeliveryCredentials(add tokens: [[UInt8]], remove revoked: [[UInt8]]) async throws(DeliveryFailure) {}
        func fetch(after serverID: Int64, limit: Int) async throws(DeliveryFailure) -> MailboxPage { MailboxPage(envelopes: [], hasMore: false) }
        func acknowledge(_ serverIDs: [Int64]) async throws(DeliveryFailure) {}
        func connect() async throws(DeliveryFailure) -> AsyncStream<TransportEvent> { AsyncStream { $0.finish() } }
        func sendEphemeral(_ envelope: [UInt8], to recipient: IdentityKey, credential: [UInt8]) async throws(DeliveryFailure) {}
    }

    static func key(_ byte: UInt8) throws -> IdentityKey {
        try IdentityKeyPair(seed: SecureBytes(copying: [UInt8](repeating: byte, count: IdentityKeyPair.seedLength))).publicKey
    }

    @Test func eachRecipientIsDepositedInOrderAndARefusalFailsAlone() async throws {
        let (a, b, c) = (try Self.key(1), try Self.key(2), try Self.key(3))
        let transport = ScriptedDeposits(answers: [
            a: .success(DepositReceipt(serverID: 10, relayTimestamp: 100)),
            b: .failure(.rejected(status: 403, code: "invalid_credential")),
            c: .success(DepositReceipt(serverID: 30, relayTimestamp: 300)),
        ])
        let results = try await transport.depositFanOut([1, 2, 3], requestID: "g", to: [
            FanOutRecipient(key: a, credential: [9]), FanOutRecipient(key: b, credential: nil), FanOutRecipient(key: c, credential: nil),
        ])
        #expect(try results[0].get() == DepositReceipt(serverID: 10, relayTimestamp: 100))
        #expect(throws: DeliveryFailure.rejected(status: 403, code: "invalid_credential")) { try results[1].get() }
        #expect(try results[2].get() == DepositReceipt(serverID: 30, relayTimestamp: 300))
        let calls = transport.calls.withLock { $0 }
        #expect(calls.map(\.0) == [a, b, c] && calls.allSatisfy { $0.1 == "g" } && calls.map(\.2) == [[9], nil, nil])
    }

    @Test func aRelayThatCannotBeReachedFailsTheWholeFanOut() async throws {
        let (a, b) = (try Self.key(1), try Self.key(2))
        let transport = ScriptedDeposits(answers: [a: .success(DepositReceipt(serverID: 1, relayTimestamp: 1)),
                                                   b: .failure(.unavailable(reason: "down"))])
        await #expect(throws: DeliveryFailure.unavailable(reason: "down")) {
            try await transport.depositFanOut([1], requestID: "g", to: [FanOutRecipient(key: a, credential: nil), FanOutRecipient(key: b, credential: nil)])
        }
    }
}
