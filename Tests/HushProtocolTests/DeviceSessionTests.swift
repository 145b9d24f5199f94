import HushCrypto
@_spi(Vectors) @testable import HushProtocol
import HushTesting
import Testing

/// Sessions between device keys (docs/PROTOCOL.md §20.10): a device that
/// starts one sends its account's certificate with the handshake (a device
/// prekey message, type 0x03) until the peer answers; the peer reads it only
/// when it asks to, and learns whose device it is from the certificate alone.
@Suite struct DeviceSessionTests {
    let account = try! Party("alice account")
    let laptop = try! Party("alice laptop")
    let desk = try! Party("bob desk")
    let deskStore = InMemorySkippedMessageKeyStore()
    let laptopStore = InMemorySkippedMessageKeyStore()

    var certificate: DeviceCertificate { DeviceCertificate(account: account.identity, device: laptop.identity.publicKey.signingKey) }

    func laptopSession() throws -> Session {
        try Session.initiate(device: laptop.identity, certificate: certificate, to: desk.identity.publicKey.signingKey,
                             bundle: try desk.bundle(), using: laptop.random)
    }

    func accept(_ opened: OpenedEnvelope) throws -> Session {
        try Session.accept(identity: desk.identity, opened: opened, signedPrekey: desk.signedPrekey, oneTimePrekey: desk.oneTimePrekey,
                           kemPrekey: desk.kemPrekey)
    }

    @Test func theCertificateTravelsUntilThePeerAnswersAndSaysWhoseDeviceItIs() throws {
        let session = try laptopSession()
        let first = try session.seal(Array("hello from the laptop".utf8), using: laptop.random)
        // A receiver that does not file sessions per device refuses it, as before.
        #expect(throws: ProtocolError.self) { try SealedSender.open(first, recipient: desk.identity) }
        let opened = try SealedSender.open(first, recipient: desk.identity, acceptingDevicePrekeyMessages: true)
        #expect(opened.sender == laptop.identity.publicKey)
        #expect(opened.deviceCertificate?.account == account.identity.publicKey)
        let deskSession = try accept(opened)
        #expect(text(try deskSession.open(opened, skippedKeys: deskStore, using: desk.random)) == "hello from the laptop")

        // Stored and loaded before the answer: still a device prekey message.
        let restored = try Session(serialized: session.serialized())
        #expect(restored.deviceCertificate == certificate && restored.pendingHandshake != nil)
        let second = try SealedSender.open(try restored.seal(Array("again".utf8), using: laptop.random), recipient: desk.identity,
                                           acceptingDevicePrekeyMessages: true)
        #expect(second.deviceCertificate == certificate)
        #expect(text(try deskSession.open(second, skippedKeys: deskStore, using: desk.random)) == "again")

        // Answered: plain messages from then on, even after a reload.
        let answer = try SealedSender.open(try deskSession.seal(Array("hi laptop".utf8), using: desk.random), recipient: laptop.identity)
        #expect(answer.deviceCertificate == nil && answer.handshake == nil)
        #expect(text(try restored.open(answer, skippedKeys: laptopStore, using: laptop.random)) == "hi laptop")
        let reloaded = try Session(serialized: restored.serialized())
        #expect(reloaded.pendingHandshake == nil)
        let third = try SealedSender.open(try reloaded.seal(Array("third".utf8), using: laptop.random), recipient: desk.identity)
        #expect(third.deviceCertificate == nil && third.handshake == nil)
        #expect(text(try deskSession.open(third, skippedKeys: deskStore, using: desk.random)) == "third")
    }

    @Test func aBundleOfAnotherDeviceOrACertificateOfAnotherDeviceIsRefused() throws {
        #expect(throws: ProtocolError.identityMismatch) {
            try Session.initiate(device: laptop.identity, certificate: certificate, to: account.identity.publicKey.signingKey,
                                 bundle: try desk.bundle(), using: laptop.random)
        }
        let other = DeviceCertificate(account: account.identity, device: desk.identity.publicKey.signingKey)
        #expect(throws: ProtocolError.self) {
            try Session.initiate(device: laptop.identity, certificate: other, to: desk.identity.publicKey.signingKey,
                                 bundle: try desk.bundle(), using: laptop.random)
        }
    }

    /// A certificate that names another account (its signature unchanged)
    /// is refused when the envelope is opened, before any session exists.
    @Test func aCertificateClaimingAnotherAccountIsRefused() throws {
        let session = try laptopSession()
        let genuine = try SealedSender.open(try session.seal(Array("x".utf8), using: laptop.random), recipient: desk.identity,
                                            acceptingDevicePrekeyMessages: true)
        let impostor = try Party("mallory account")
        var forged = genuine.encoded
        forged.replaceSubrange(33..<65, with: impostor.identity.publicKey.rawRepresentation)
        let envelope = try SealedSender.seal(try OpenedEnvelope.decodeAcceptingDevices(genuine.encoded), to: desk.identity.publicKey,
                                             using: laptop.random)
        #expect(try SealedSender.open(envelope, recipient: desk.identity, acceptingDevicePrekeyMessages: true).deviceCertificate != nil)
        #expect(throws: ProtocolError.self) { try OpenedEnvelope.decodeAcceptingDevices(forged) }
    }

    /// The largest device prekey message is the envelope bound: 96 bytes over an account's largest.
    @Test func theLargestDevicePrekeyMessageIsTheEnvelopeBound() throws {
        let session = try laptopSession()
        let big = try session.seal([UInt8](repeating: 7, count: Padding.maximumContentLength), using: laptop.random)
        try SealedSender.checkShape(big)
        #expect(big.count == SealedSender.maximumLength && big.count == 68_992)
        #expect(SealedSender.maximumLength - SealedSender.maximumAccountLength == 96)
        #expect(try SealedSender.open(big, recipient: desk.identity, acceptingDevicePrekeyMessages: true).deviceCertificate == certificate)
    }
}
