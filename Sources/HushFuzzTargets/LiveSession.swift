import HushCrypto
import HushProtocol

/// A session between two fixed identities, past its handshake, built once
/// per process: the ratchet target decrypts each input as Bob, from Alice,
/// on a fresh copy of Bob's state (so inputs do not depend on each other and
/// a crash reproduces from its input alone).
final class LiveSession: @unchecked Sendable {
    static let shared = LiveSession()

    let alice: IdentityKeyPair
    let bob: IdentityKeyPair
    /// Alice's device directory (docs/PROTOCOL.md §20.9), for the record parsers.
    let aliceDirectory: DeviceDirectory
    private let bobState: SecureBytes

    private init() {
        do {
            alice = try IdentityKeyPair(seed: SecureBytes(copying: [UInt8](repeating: 0xA1, count: IdentityKeyPair.seedLength)))
            bob = try IdentityKeyPair(seed: SecureBytes(copying: [UInt8](repeating: 0xB0, count: IdentityKeyPair.seedLength)))
            aliceDirectory = try DeviceDirectory(account: alice.publicKey)
            let signed = try PrivatePrekey.generate(kind: .signedX25519, id: 1, identity: bob)
            let kem = try PrivatePrekey.generate(kind: .lastResortKEM, id: 1, identity: bob)
            let bundle = try PrekeyBundle(identityKey: bob.publicKey, signedPrekey: signed.signed, kemPrekey: kem.signed, oneTimePrekey: nil)
            let aliceSession = try Session.initiate(identity: alice, to: HushAddress(identityKey: bob.publicKey), bundle: bundle)
            let first = try SealedSender.open(try aliceSession.seal(Array("first".utf8)), recipient: bob)
            let bobSession = try Session.accept(identity: bob, opened: first, signedPrekey: signed, oneTimePrekey: nil, kemPrekey: kem)
            _ = try bobSession.open(first, skippedKeys: InMemorySkippedMessageKeyStore())
            bobState = bobSession.serialized()
        } catch {
            fatalError("the fuzzing session could not be set up: \(error)")
        }
    }

    /// Bob's session as the store would keep it (a seed for the state parser).
    var bobStateBytes: [UInt8] { bobState.copyBytes() }

    func openAsBob(ratchetMessage: [UInt8]) {
        guard let session = try? Session(serialized: bobState) else { return }
        let opened = OpenedEnvelope(sender: alice.publicKey, handshake: nil, ratchetMessage: ratchetMessage)
        _ = try? session.open(opened, skippedKeys: InMemorySkippedMessageKeyStore())
    }
}
