import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/first-message.json: Alice's first envelope to Bob
/// (prekey message: sealed sender + handshake data + first ratchet message),
/// and Bob accepting it.
public struct FirstMessageSuite: VectorSuite {
    public let name = "hush-first-message"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let s = try ProtocolScenario(fields)
        let ratchetKey = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: try fields.hex("alice_ratchet_private")))
        let session = try s.initiatorSession(ratchetKey: ratchetKey)
        let content = try fields.hex("content")
        let sealRandom = ScriptedRandom([try fields.hex("sealed_sender_ephemeral_private")])
        let envelope = try session.seal(content, using: sealRandom)
        try sealRandom.checkUsedAsRecorded()
        try expectHex(envelope, try fields.hex("envelope"), "envelope")

        let opened = try SealedSender.open(envelope, recipient: s.bob)
        try expectHex(opened.sender.rawRepresentation, s.alice.publicKey.rawRepresentation, "sender inside the envelope")
        try expectHex(opened.ratchetMessage, try fields.hex("ratchet_message"), "ratchet message inside the envelope")
        let bob = try Session.accept(identity: s.bob, opened: opened, signedPrekey: s.signedPrekey, oneTimePrekey: s.oneTimePrekey, kemPrekey: s.kemPrekey)
        let openRandom = ScriptedRandom([try fields.hex("bob_ratchet_private")])
        let plaintext = try bob.open(opened, skippedKeys: InMemorySkippedMessageKeyStore(), using: openRandom)
        try openRandom.checkUsedAsRecorded()
        try expectHex(plaintext, content, "Bob's plaintext")
        let decoded = try Content(decoding: plaintext)
        guard case let .text(text) = decoded.body else { throw VectorFailure("first message is not text") }
        try expectEqual(text, try fields.string("text"), "text")
    }
}
