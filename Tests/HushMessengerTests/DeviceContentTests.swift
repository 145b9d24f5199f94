import HushCrypto
@testable import HushMessenger
import HushProtocol
import HushTesting
import Testing

/// Linked devices' contents (docs/PROTOCOL.md §20.11) are written down but
/// not in use: an account is one device. One that arrives anyway (from a
/// later version, or forged by a contact) is set aside with a reason that
/// says so, never applied, and the conversation goes on.
@Suite struct DeviceContentTests {
    @Test func aDeviceListOrTranscriptIsSetAsideNotApplied() async throws {
        let relay = InMemoryRelay()
        let (alice, bob) = try await relay.acquaintedPair()
        let random = DeterministicRandom(seed: "device contents")
        let account = IdentityKeyPair.generate(using: random), phone = Ed25519.PrivateKey(using: random)
        let list = try DeviceList.sign(account: account, counter: 1, createdAt: 1, signer: phone,
                                       entries: [try DeviceListEntry.linking(phone, to: account.publicKey, name: "phone", addedAt: 1)])
        _ = try await alice.messenger.seal(.deviceList(list.encoded), to: "bob")
        _ = try await alice.messenger.seal(.sentTranscript(recipient: bob.identity.publicKey,
                                                           Content(id: MessageID.random(using: random), sentAt: 1, body: .text("forged"))),
                                           to: "bob")
        try await alice.messenger.send(text: "still talking", to: "bob")
        let report = try await bob.messenger.sync()
        #expect(report.quarantined + report.resendRequested == 2, "\(report)")
        let reasons = try await bob.messenger.quarantined().map(\.reason)
        #expect(reasons.count == 2 && reasons.allSatisfy { $0.contains("linked devices are not in use") }, "\(reasons)")
        #expect(try await bob.messenger.history(with: "alice").map(\.body) == ["hello", "still talking"])
    }
}
