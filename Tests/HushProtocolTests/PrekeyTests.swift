import HushCrypto
@_spi(Vectors) @testable import HushProtocol
import Testing

@Suite struct PrekeyTests {
    @Test func bundleWithBadSignatureIsRefused() throws {
        let bob = try Party("bob")
        let alice = try Party("alice")
        var signature = bob.signedPrekey.signed.signature
        signature[5] ^= 0x01
        let forged = try SignedPrekey(kind: .signedX25519, id: 1, publicKey: bob.signedPrekey.signed.publicKey, signature: signature)
        let bundle = try PrekeyBundle(identityKey: bob.identity.publicKey, signedPrekey: forged, kemPrekey: bob.kemPrekey.signed, oneTimePrekey: nil)
        #expect(throws: ProtocolError.invalidSignature(what: "signedX25519 prekey 1")) {
            try Session.initiate(identity: alice.identity, to: bob.identity.address, bundle: bundle, using: alice.random)
        }
        // A KEM prekey re-labelled as one-time fails too: the kind is signed.
        let relabelled = try SignedPrekey(kind: .oneTimeKEM, id: 7, publicKey: bob.kemPrekey.signed.publicKey, signature: bob.kemPrekey.signed.signature)
        let bundle2 = try PrekeyBundle(identityKey: bob.identity.publicKey, signedPrekey: bob.signedPrekey.signed, kemPrekey: relabelled, oneTimePrekey: nil)
        #expect(throws: ProtocolError.self) { try bundle2.verify() }
    }

    @Test func bundleOfAnotherIdentityIsRefused() throws {
        let bob = try Party("bob")
        let mallory = try Party("mallory")
        let alice = try Party("alice")
        #expect(throws: ProtocolError.identityMismatch) {
            try Session.initiate(identity: alice.identity, to: bob.identity.address, bundle: mallory.bundle(), using: alice.random)
        }
    }

    @Test func privatePrekeyRoundTrip() throws {
        let bob = try Party("bob")
        for prekey in [bob.signedPrekey, bob.oneTimePrekey, bob.kemPrekey] {
            let restored = try PrivatePrekey(serialized: prekey.serialized(), identity: bob.identity.publicKey)
            #expect(restored.signed == prekey.signed)
            #expect(restored.secret == prekey.secret)
        }
        let other = try Party("alice")
        #expect(throws: ProtocolError.self) { try PrivatePrekey(serialized: bob.kemPrekey.serialized(), identity: other.identity.publicKey) }
    }

    @Test func identityRestoresFromSeed() throws {
        let bob = try Party("bob")
        let restored = try IdentityKeyPair(seed: bob.identity.seed)
        #expect(restored.publicKey == bob.identity.publicKey)
        #expect(try restored.publicKey.agreementKey() == restored.agreementKey.publicKey)
    }

    @Test func bothSidesDeriveTheSameHandshakeSecrets() throws {
        let alice = try Party("alice"), bob = try Party("bob")
        let ephemeral = X25519.PrivateKey(using: alice.random)
        let encapsulation = try MLKEM.encapsulate(to: bob.kemPrekey.signed.publicKey)
        let (message, sent) = try Handshake.initiate(identity: alice.identity, bundle: bob.bundle(), ephemeral: ephemeral, encapsulation: encapsulation)
        let received = try Handshake.respond(identity: bob.identity, initiator: alice.identity.publicKey, message: message,
                                             signedPrekey: bob.signedPrekey, oneTimePrekey: bob.oneTimePrekey, kemPrekey: bob.kemPrekey)
        #expect(sent.rootKey == received.rootKey)
        #expect(sent.initiatorHeaderKey == received.initiatorHeaderKey)
        #expect(sent.responderNextHeaderKey == received.responderNextHeaderKey)
        #expect(sent.transcriptHash == received.transcriptHash)
        // Without the one-time prekey the responder derives something else.
        #expect(throws: ProtocolError.self) {
            try Handshake.respond(identity: bob.identity, initiator: alice.identity.publicKey, message: message,
                                  signedPrekey: bob.signedPrekey, oneTimePrekey: nil, kemPrekey: bob.kemPrekey)
        }
    }
}

@Suite struct PrekeyWireFormatTests {
    @Test func bundleRoundTripsAndDecodingIsStrict() throws {
        let bob = try Party("bob")
        for withOneTime in [true, false] {
            let bundle = try bob.bundle(withOneTime: withOneTime)
            let bytes = bundle.encoded
            #expect(bytes.count == 1 + 32 + (1 + 4 + 32 + 64) + (1 + 4 + 1184 + 64) + 1 + (withOneTime ? 1 + 4 + 32 + 64 : 0))
            let decoded = try PrekeyBundle(encoded: bytes)
            #expect(decoded == bundle)
            try decoded.verify(for: bob.identity.address)
            #expect(throws: ProtocolError.self) { try PrekeyBundle(encoded: bytes + [0]) }
            for cut in stride(from: 0, to: bytes.count, by: 7) {
                #expect(throws: ProtocolError.self) { try PrekeyBundle(encoded: Array(bytes[..<cut])) }
            }
        }
        // A bundle whose slots hold the wrong kinds is refused while decoding.
        var swapped: [UInt8] = [0x01] + bob.identity.publicKey.rawRepresentation
        swapped += bob.kemPrekey.signed.encoded + bob.signedPrekey.signed.encoded + [0x00]
        #expect(throws: ProtocolError.self) { try PrekeyBundle(encoded: swapped) }
        #expect(try SignedPrekey(encoded: bob.kemPrekey.signed.encoded) == bob.kemPrekey.signed)
    }
}
