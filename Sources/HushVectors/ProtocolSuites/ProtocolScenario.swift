import HushCrypto
@_spi(Vectors) import HushProtocol

/// Rebuilds the parties of a protocol vector from its recorded inputs:
/// identity seeds, prekey secrets, and the initiator's ephemeral key, first
/// ratchet key and ML-KEM ciphertext.
struct ProtocolScenario {
    let alice: IdentityKeyPair
    let bob: IdentityKeyPair
    let signedPrekey: PrivatePrekey
    let oneTimePrekey: PrivatePrekey?
    let kemPrekey: PrivatePrekey
    let ephemeral: X25519.PrivateKey
    let kemCiphertext: [UInt8]

    init(_ fields: CaseFields) throws {
        alice = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("alice_identity_seed")))
        bob = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("bob_identity_seed")))
        signedPrekey = try PrivatePrekey(kind: .signedX25519, id: try fields.uint32("bob_signed_prekey_id"),
                                         secret: SecureBytes(copying: try fields.hex("bob_signed_prekey_private")), identity: bob)
        if let secret = try fields.optionalHex("bob_one_time_prekey_private") {
            oneTimePrekey = try PrivatePrekey(kind: .oneTimeX25519, id: try fields.uint32("bob_one_time_prekey_id"),
                                              secret: SecureBytes(copying: secret), identity: bob)
        } else {
            oneTimePrekey = nil
        }
        guard let kind = PrekeyKind(rawValue: UInt8(try fields.int("bob_kem_prekey_kind"))) else { throw VectorFailure("bad KEM prekey kind") }
        kemPrekey = try PrivatePrekey(kind: kind, id: try fields.uint32("bob_kem_prekey_id"),
                                      secret: SecureBytes(copying: try fields.hex("bob_kem_prekey_seed")), identity: bob)
        ephemeral = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: try fields.hex("alice_ephemeral_private")))
        kemCiphertext = try fields.hex("kem_ciphertext")
    }

    var bundle: PrekeyBundle {
        get throws {
            try PrekeyBundle(identityKey: bob.publicKey, signedPrekey: signedPrekey.signed, kemPrekey: kemPrekey.signed,
                             oneTimePrekey: oneTimePrekey?.signed)
        }
    }

    /// The initiator's encapsulation, completed by the responder's decapsulation
    /// (swift-crypto cannot encapsulate with given randomness).
    var encapsulation: MLKEM.Encapsulation {
        get throws {
            let secret = try MLKEM.PrivateKey(seed: kemPrekey.secret).decapsulate(kemCiphertext)
            return try MLKEM.Encapsulation(ciphertext: kemCiphertext, sharedSecret: secret)
        }
    }

    func initiatorSession(ratchetKey: X25519.PrivateKey) throws -> Session {
        try Session.initiate(identity: alice, bundle: try bundle, ephemeral: ephemeral, ratchetKey: ratchetKey, encapsulation: try encapsulation)
    }
}
