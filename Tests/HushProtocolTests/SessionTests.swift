import HushCrypto
@_spi(Vectors) @testable import HushProtocol
import HushTesting
import Testing

@Suite struct SessionTests {
    @Test func firstContactAndReply() throws {
        var c = try Conversation()
        #expect(text(try c.bobReceives(try c.aliceSends("hello bob"))) == "hello bob")
        #expect(c.aliceSession.pendingHandshake != nil)
        #expect(text(try c.aliceReceives(try c.bobSends("hello alice"))) == "hello alice")
        // Once Bob answered, Alice stops attaching the handshake.
        #expect(c.aliceSession.pendingHandshake == nil)
        let next = try SealedSender.open(try c.aliceSends("third"), recipient: c.bob.identity)
        #expect(next.handshake == nil)
        #expect(text(try c.bobSession.open(next, skippedKeys: c.bobStore)) == "third")
    }

    @Test func sessionWithoutOneTimePrekey() throws {
        var c = try Conversation(oneTime: false)
        #expect(text(try c.bobReceives(try c.aliceSends("no one-time key left"))) == "no one-time key left")
        #expect(text(try c.aliceReceives(try c.bobSends("fine"))) == "fine")
    }

    @Test func lostFirstMessageStillEstablishes() throws {
        var c = try Conversation()
        _ = try c.aliceSends("lost")
        let second = try c.aliceSends("second")
        #expect(text(try c.bobReceives(second)) == "second")
        // The later prekey message names the same handshake as the session.
        let third = try SealedSender.open(try c.aliceSends("third"), recipient: c.bob.identity)
        #expect(try c.bobSession.matches(#require(third.handshake)))
        #expect(text(try c.bobSession.open(third, skippedKeys: c.bobStore)) == "third")
        #expect(c.bobStore.count() == 1)  // the lost first message's key waits
    }

    @Test func responderCannotSendFirst() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("hi"))
        let fresh = DoubleRatchet(responder: HandshakeSecrets(transcriptHash: [], rootKey: SecureBytes(count: 32),
                                                              initiatorHeaderKey: SecureBytes(count: 32), responderNextHeaderKey: SecureBytes(count: 32),
                                                              associatedData: []), ratchetKey: X25519.PrivateKey(using: c.bob.random))
        #expect(throws: ProtocolError.self) { try fresh.encrypt([1, 2, 3]) }
    }

    @Test func outOfOrderAcrossChains() throws {
        var c = try Conversation()
        let a0 = try c.aliceSends("a0"), a1 = try c.aliceSends("a1"), a2 = try c.aliceSends("a2")
        #expect(text(try c.bobReceives(a2)) == "a2")
        let b0 = try c.bobSends("b0")
        #expect(text(try c.aliceReceives(b0)) == "b0")
        let a3 = try c.aliceSends("a3"), a4 = try c.aliceSends("a4")  // a new chain after Alice's DH step
        let b1 = try c.bobSends("b1")
        #expect(text(try c.bobReceives(a4)) == "a4")  // skips a3 in the new chain and stores a0, a1 of the old one? (already stored)
        #expect(text(try c.bobReceives(a0)) == "a0")
        #expect(text(try c.bobReceives(a3)) == "a3")
        #expect(text(try c.bobReceives(a1)) == "a1")
        #expect(text(try c.aliceReceives(b1)) == "b1")
        #expect(c.bobStore.count() == 0)
        #expect(c.aliceStore.count() == 0)
    }

    @Test func replayIsRejected() throws {
        var c = try Conversation()
        let a0 = try c.aliceSends("a0"), a1 = try c.aliceSends("a1")
        _ = try c.bobReceives(a0)
        #expect(throws: ProtocolError.decryptionFailed) { try c.bobReceives(a0) }
        // A replay of a message whose key had been skipped and then used.
        let a2 = try c.aliceSends("a2"), a3 = try c.aliceSends("a3")
        _ = try c.bobReceives(a3)
        _ = try c.bobReceives(a2)
        #expect(throws: ProtocolError.decryptionFailed) { try c.bobReceives(a2) }
        #expect(text(try c.bobReceives(a1)) == "a1")
        #expect(throws: ProtocolError.decryptionFailed) { try c.bobReceives(a1) }
    }

    @Test func everyBitFlipOfAnEnvelopeIsRejectedAndTheSessionSurvives() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("establish"))
        _ = try c.aliceReceives(try c.bobSends("ack"))
        let genuine = try c.aliceSends("x")
        let before = c.bobSession.serialized()
        for index in genuine.indices {
            for bit in 0..<8 {
                var tampered = genuine
                tampered[index] ^= 1 << UInt8(bit)
                #expect(throws: ProtocolError.self) { try c.bobReceives(tampered) }
            }
        }
        #expect(c.bobSession.serialized() == before)
        #expect(text(try c.bobReceives(genuine)) == "x")
        #expect(text(try c.bobReceives(try c.aliceSends("next"))) == "next")
    }

    @Test func everyBitFlipOfARatchetMessageIsRejectedAndTheRatchetSurvives() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("establish"))
        // A message that starts a new chain at Bob (DH step) and skips one key.
        _ = try c.aliceReceives(try c.bobSends("ack"))
        _ = try c.aliceSession.ratchet.encrypt(Array("skipped".utf8))
        let genuine = try c.aliceSession.ratchet.encrypt(Array("y".utf8))
        let before = c.bobSession.serialized()
        for index in genuine.indices {
            for bit in 0..<8 {
                var tampered = genuine
                tampered[index] ^= 1 << UInt8(bit)
                #expect(throws: ProtocolError.self) { try c.bobSession.ratchet.decrypt(tampered, skippedKeys: c.bobStore) }
            }
        }
        #expect(c.bobSession.serialized() == before)
        #expect(c.bobStore.count() == 0)
        #expect(text(try c.bobSession.ratchet.decrypt(genuine, skippedKeys: c.bobStore)) == "y")
        #expect(c.bobStore.count() == 1)
    }

    @Test func gapBeyondTheBoundIsRejectedWithoutStoringKeys() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("establish"))
        var last: [UInt8] = []
        for _ in 0...(RatchetLimits.maxForwardJump + 1) { last = try c.aliceSession.ratchet.encrypt(Array("m".utf8)) }
        let before = c.bobSession.serialized()
        #expect(throws: ProtocolError.messageGapTooLarge) { try c.bobSession.ratchet.decrypt(last, skippedKeys: c.bobStore) }
        #expect(c.bobStore.count() == 0)
        #expect(c.bobSession.serialized() == before)
        // A jump exactly at the bound is accepted, and the store stays within its limits.
        let c2 = try { () throws -> Conversation in var c = try Conversation(); _ = try c.bobReceives(try c.aliceSends("e")); return c }()
        var atBound: [UInt8] = []
        for _ in 0...RatchetLimits.maxForwardJump { atBound = try c2.aliceSession.ratchet.encrypt(Array("m".utf8)) }
        _ = try c2.bobSession.ratchet.decrypt(atBound, skippedKeys: c2.bobStore)
        #expect(c2.bobStore.count() == RatchetLimits.maxForwardJump)
    }

    @Test func skippedKeyStoreRespectsItsBounds() throws {
        let store = InMemorySkippedMessageKeyStore()
        let chains = (0..<(RatchetLimits.maxSkippedChains + 2)).map { SecureBytes(copying: [UInt8](repeating: UInt8($0), count: 32)) }
        for chain in chains {
            store.insert((0..<UInt32(RatchetLimits.maxSkippedKeysPerChain + 10)).map {
                SkippedMessageKey(headerKey: chain, counter: $0, messageKey: SecureBytes(count: 32))
            })
        }
        #expect(store.count() <= RatchetLimits.maxSkippedKeysTotal)
        #expect(store.headerKeys().count <= RatchetLimits.maxSkippedChains)
        #expect(store.messageKey(headerKey: chains.last!, counter: 9) == nil)  // oldest of a full chain evicted
        #expect(store.messageKey(headerKey: chains.last!, counter: 10) != nil)
    }

    @Test func forwardSecrecyMessageKeysAreGoneAfterUse() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("establish"))
        let skipped = try c.aliceSends("skipped")
        let current = try c.aliceSends("current")
        // The key Bob will use for `current`, computed from his chain key beforehand.
        let chain = try #require(c.bobSession.ratchet.receivingChainKey).slice(0..<32)
        let expectedKey = SecureBytes(count: 32)
        chain.withUnsafeMutableBytes { ck in
            expectedKey.withUnsafeMutableBytes { mk in
                ChainStep.advance(ck, messageKey: mk)  // message 1 (skipped)
                ChainStep.advance(ck, messageKey: mk)  // message 2 (current)
            }
        }
        _ = try c.bobReceives(current)
        let state = c.bobSession.serialized().copyBytes()
        #expect(!contains(state, expectedKey.copyBytes()))
        #expect(c.bobStore.count() == 1)
        _ = try c.bobReceives(skipped)
        #expect(c.bobStore.count() == 0)  // the skipped key is deleted once used
        #expect(throws: ProtocolError.decryptionFailed) { try c.bobReceives(skipped) }
    }

    @Test func postCompromiseHealing() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("establish"))
        _ = try c.aliceReceives(try c.bobSends("ack"))
        // An attacker copies Bob's whole state.
        let stolen = try Session(serialized: c.bobSession.serialized())
        let stolenStore = InMemorySkippedMessageKeyStore()
        let attackerRandom = DeterministicRandom(seed: "attacker")
        // Until Bob has sent with a ratchet key made after the theft, the copy reads Alice.
        let early = try SealedSender.open(try c.aliceSends("still readable"), recipient: c.bob.identity)
        #expect(text(try stolen.open(early, skippedKeys: stolenStore, using: attackerRandom)) == "still readable")
        #expect(text(try c.bobSession.open(early, skippedKeys: c.bobStore)) == "still readable")
        // Bob answers with a fresh ratchet key, Alice answers that: both have sent.
        _ = try c.aliceReceives(try c.bobSends("reply"))
        let late = try c.aliceSends("after healing")
        let opened = try SealedSender.open(late, recipient: c.bob.identity)
        #expect(throws: ProtocolError.decryptionFailed) { try stolen.open(opened, skippedKeys: stolenStore, using: attackerRandom) }
        #expect(text(try c.bobReceives(late)) == "after healing")
    }

    @Test func serializeRestoreThenDecryptNext() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("a0"))
        _ = try c.aliceReceives(try c.bobSends("b0"))
        let restoredBob = try Session(serialized: c.bobSession.serialized())
        let restoredAlice = try Session(serialized: c.aliceSession.serialized())
        #expect(restoredBob.serialized() == c.bobSession.serialized())
        let envelope = try restoredAlice.seal(Array("after restore".utf8), using: c.alice.random)
        let opened = try SealedSender.open(envelope, recipient: c.bob.identity)
        #expect(text(try restoredBob.open(opened, skippedKeys: c.bobStore)) == "after restore")
        // A session with pending handshake data survives too.
        let fresh = try Conversation()
        let pending = try Session(serialized: fresh.aliceSession.serialized())
        #expect(pending.pendingHandshake == fresh.aliceSession.pendingHandshake)
        // Corrupt state is refused, not half-loaded.
        var bytes = c.bobSession.serialized().copyBytes()
        bytes.append(0)
        #expect(throws: ProtocolError.self) { try Session(serialized: SecureBytes(copying: bytes)) }
        bytes[0] = 9
        #expect(throws: ProtocolError.unsupportedVersion(9)) { try Session(serialized: SecureBytes(copying: bytes)) }
    }

    @Test func senderInsideTheEnvelopeMustBeThePeer() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("a0"))
        let mallory = try Party("mallory")
        // Mallory claims to be Alice but her ratchet message is her own.
        let malloryStore = InMemorySkippedMessageKeyStore()
        _ = malloryStore
        let forgedOpened = OpenedEnvelope(sender: mallory.identity.publicKey, handshake: nil, ratchetMessage: try c.aliceSession.ratchet.encrypt(Array("x".utf8)))
        #expect(throws: ProtocolError.senderMismatch) { try c.bobSession.open(forgedOpened, skippedKeys: c.bobStore) }
    }

    @Test func envelopeForSomeoneElseFails() throws {
        let c = try Conversation()
        let envelope = try c.aliceSends("for bob")
        #expect(throws: ProtocolError.decryptionFailed) { try SealedSender.open(envelope, recipient: c.alice.identity) }
        #expect(throws: ProtocolError.unsupportedVersion(2)) { try SealedSender.open([2] + envelope.dropFirst(), recipient: c.bob.identity) }
    }

    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}

@Suite struct HandshakeFailureTests {
    @Test func alteredKEMCiphertextYieldsASessionThatCannotDecrypt() throws {
        let c = try Conversation()
        let opened = try SealedSender.open(try c.aliceSends("hello"), recipient: c.bob.identity)
        let h = try #require(opened.handshake)
        var ciphertext = h.kemCiphertext
        ciphertext[100] ^= 0x01
        let altered = try HandshakeInit(ephemeralKey: h.ephemeralKey, signedPrekeyID: h.signedPrekeyID, oneTimePrekeyID: h.oneTimePrekeyID,
                                        kemPrekeyKind: h.kemPrekeyKind, kemPrekeyID: h.kemPrekeyID, kemCiphertext: ciphertext)
        let forged = OpenedEnvelope(sender: opened.sender, handshake: altered, ratchetMessage: opened.ratchetMessage)
        let session = try Session.accept(identity: c.bob.identity, opened: forged, signedPrekey: c.bob.signedPrekey,
                                         oneTimePrekey: c.bob.oneTimePrekey, kemPrekey: c.bob.kemPrekey)
        #expect(throws: ProtocolError.decryptionFailed) { try session.open(forged, skippedKeys: InMemorySkippedMessageKeyStore()) }
    }

    @Test func wrongPrekeysAreRefused() throws {
        let c = try Conversation()
        let opened = try SealedSender.open(try c.aliceSends("hello"), recipient: c.bob.identity)
        #expect(throws: ProtocolError.self) {
            try Session.accept(identity: c.bob.identity, opened: opened, signedPrekey: c.bob.signedPrekey, oneTimePrekey: nil, kemPrekey: c.bob.kemPrekey)
        }
    }

    @Test func ratchetStepGapIsBoundedAcrossBothChains() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("establish"))
        // Bob sends 600 messages; Alice receives only the first.
        var bobChain: [[UInt8]] = []
        for _ in 0..<600 { bobChain.append(try c.bobSession.ratchet.encrypt(Array("b".utf8))) }
        _ = try c.aliceSession.ratchet.decrypt(bobChain[0], skippedKeys: c.aliceStore)
        // Alice answers, so Bob's next chain starts; he sends 500 more.
        _ = try c.bobSession.ratchet.decrypt(try c.aliceSession.ratchet.encrypt(Array("a".utf8)), skippedKeys: c.bobStore)
        var last: [UInt8] = []
        for _ in 0..<500 { last = try c.bobSession.ratchet.encrypt(Array("c".utf8)) }
        // 599 left in the old chain plus 499 in the new one exceed the bound, though each alone would not.
        let before = c.aliceSession.serialized()
        #expect(throws: ProtocolError.messageGapTooLarge) { try c.aliceSession.ratchet.decrypt(last, skippedKeys: c.aliceStore) }
        #expect(c.aliceSession.serialized() == before)
        #expect(c.aliceStore.count() == 0)
        // Messages within the bound still arrive.
        #expect(text(try c.aliceSession.ratchet.decrypt(bobChain[599], skippedKeys: c.aliceStore)) == "b")
    }

    @Test func relayShapeCheck() throws {
        let c = try Conversation()
        let envelope = try c.aliceSends("x")
        try SealedSender.checkShape(envelope)
        #expect(throws: ProtocolError.unsupportedVersion(0)) { try SealedSender.checkShape([0] + envelope.dropFirst()) }
        #expect(throws: ProtocolError.self) { try SealedSender.checkShape(Array(envelope.prefix(SealedSender.minimumLength - 1))) }
        #expect(throws: ProtocolError.limitExceeded(what: "envelope")) { try SealedSender.checkShape([1] + [UInt8](repeating: 0, count: SealedSender.maximumLength)) }
        // The largest content makes an account's largest envelope (a device's is 96 bytes longer: DeviceSessionTests).
        let big = try c.aliceSession.seal([UInt8](repeating: 7, count: Padding.maximumContentLength), using: c.alice.random)
        try SealedSender.checkShape(big)
        #expect(big.count == SealedSender.maximumAccountLength)
    }
}
