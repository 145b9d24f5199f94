import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/handshake.json: both sides of the hybrid handshake from
/// recorded inputs, with every intermediate value.
public struct HandshakeSuite: VectorSuite {
    public let name = "hush-handshake"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let s = try ProtocolScenario(fields)
        try expectHex(s.alice.publicKey.rawRepresentation, try fields.hex("alice_identity_key"), "Alice's identity key")
        try expectHex(s.bob.publicKey.rawRepresentation, try fields.hex("bob_identity_key"), "Bob's identity key")
        try expectHex(s.alice.agreementKey.publicKey.rawRepresentation, try fields.hex("alice_agreement_key"), "Alice's agreement key")
        try expectHex(s.bob.agreementKey.publicKey.rawRepresentation, try fields.hex("bob_agreement_key"), "Bob's agreement key")
        try expectHex(s.signedPrekey.signed.signature, try fields.hex("bob_signed_prekey_signature"), "signed prekey signature")
        try expectHex(s.kemPrekey.signed.publicKey, try fields.hex("bob_kem_prekey_public"), "KEM prekey public key")
        try expectHex(s.kemPrekey.signed.signature, try fields.hex("bob_kem_prekey_signature"), "KEM prekey signature")
        let encapsulation = try s.encapsulation
        try expectHex(encapsulation.sharedSecret.copyBytes(), try fields.hex("kem_shared_secret"), "ML-KEM shared secret")

        let (message, initiator) = try Handshake.initiate(identity: s.alice, bundle: try s.bundle, ephemeral: s.ephemeral, encapsulation: encapsulation)
        try expectHex(message.encoded, try fields.hex("handshake_init"), "handshake init encoding")
        try expectHex(initiator.transcriptHash, try fields.hex("transcript_hash"), "transcript hash")
        try expectHex(initiator.rootKey.copyBytes(), try fields.hex("root_key"), "root key")
        try expectHex(initiator.initiatorHeaderKey.copyBytes(), try fields.hex("initiator_header_key"), "initiator header key")
        try expectHex(initiator.responderNextHeaderKey.copyBytes(), try fields.hex("responder_next_header_key"), "responder next header key")
        try expectHex(initiator.associatedData, try fields.hex("associated_data"), "associated data")

        let responder = try Handshake.respond(identity: s.bob, initiator: s.alice.publicKey, message: message, signedPrekey: s.signedPrekey,
                                              oneTimePrekey: s.oneTimePrekey, kemPrekey: s.kemPrekey)
        try expectHex(responder.rootKey.copyBytes(), initiator.rootKey.copyBytes(), "responder's root key")
        try expectHex(responder.initiatorHeaderKey.copyBytes(), initiator.initiatorHeaderKey.copyBytes(), "responder's header key")
        try expectHex(responder.responderNextHeaderKey.copyBytes(), initiator.responderNextHeaderKey.copyBytes(), "responder's next header key")
    }
}
