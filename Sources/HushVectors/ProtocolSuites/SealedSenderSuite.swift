import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/sealed-sender.json: the sealed-sender layer alone.
public struct SealedSenderSuite: VectorSuite {
    public let name = "hush-sealed-sender"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let recipient = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("recipient_identity_seed")))
        let sender = try IdentityKey(rawRepresentation: try fields.hex("sender_identity_key"))
        let ephemeral = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: try fields.hex("ephemeral_private")))
        try expectHex(ephemeral.publicKey.rawRepresentation, try fields.hex("ephemeral_public"), "ephemeral public key")
        try expectHex(recipient.agreementKey.publicKey.rawRepresentation, try fields.hex("recipient_agreement_key"), "recipient agreement key")
        let shared = try ephemeral.sharedSecret(with: recipient.agreementKey.publicKey)
        try expectHex(shared.copyBytes(), try fields.hex("shared_secret"), "X25519 shared secret")
        let key = try SealedSender.layerKey(shared: { () throws(CryptoError) in shared }, ephemeral: ephemeral.publicKey,
                                            recipientAgreement: recipient.agreementKey.publicKey)
        try expectHex(key.copyBytes(), try fields.hex("layer_key"), "layer key")
        let contents = OpenedEnvelope(sender: sender, handshake: nil, ratchetMessage: try fields.hex("ratchet_message"))
        try expectHex(contents.encoded, try fields.hex("inner"), "inner plaintext")
        let random = ScriptedRandom([try fields.hex("ephemeral_private")])
        let envelope = try SealedSender.seal(contents, to: recipient.publicKey, using: random)
        try random.checkUsedAsRecorded()
        try expectHex(envelope, try fields.hex("envelope"), "envelope")
        let opened = try SealedSender.open(envelope, recipient: recipient)
        try expectHex(opened.ratchetMessage, contents.ratchetMessage, "opened ratchet message")
        try expectHex(opened.sender.rawRepresentation, sender.rawRepresentation, "opened sender")
    }
}
