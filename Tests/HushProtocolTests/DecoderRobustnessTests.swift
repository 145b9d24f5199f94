import HushCrypto
@_spi(Vectors) @testable import HushProtocol
import HushTesting
import Testing

/// Decoders meet attacker-chosen bytes: every truncation and random garbage
/// must be refused with an error, never a crash or an unbounded allocation.
@Suite struct DecoderRobustnessTests {
    let random = DeterministicRandom(seed: "robustness")

    @Test func truncationsOfEveryStructureAreRefused() throws {
        var c = try Conversation()
        _ = try c.bobReceives(try c.aliceSends("establish"))
        let session = c.bobSession.serialized().copyBytes()
        for cut in 0..<session.count {
            #expect(throws: ProtocolError.self) { try Session(serialized: SecureBytes(copying: Array(session[..<cut]))) }
        }
        let prekey = c.bob.kemPrekey.serialized().copyBytes()
        for cut in 0..<prekey.count {
            #expect(throws: ProtocolError.self) { try PrivatePrekey(serialized: SecureBytes(copying: Array(prekey[..<cut])), identity: c.bob.identity.publicKey) }
        }
        let code = SafetyNumber(local: c.alice.identity.publicKey, remote: c.bob.identity.publicKey).scannable.serialized()
        for cut in 0..<code.count {
            #expect(throws: ProtocolError.self) { try ScannableFingerprint(deserializing: Array(code[..<cut])) }
        }
    }

    @Test func randomBytesAreRefused() throws {
        let recipient = try Party("bob").identity
        for round in 0..<300 {
            let length = Int(random.uniform(1_600))
            var bytes = random.bytes(length)
            if round % 2 == 0, !bytes.isEmpty { bytes[0] = 0x01 }  // get past the version byte half the time
            #expect(throws: ProtocolError.self) { try SealedSender.open(bytes, recipient: recipient) }
            #expect(throws: ProtocolError.self) { try Content(decoding: bytes) }
            #expect(throws: ProtocolError.self) { try Session(serialized: SecureBytes(copying: bytes)) }
            #expect(throws: ProtocolError.self) { try DoubleRatchet(serialized: SecureBytes(copying: bytes)) }
            #expect(throws: ProtocolError.self) { try HushAddress(parsing: String(decoding: bytes.prefix(90), as: UTF8.self)) }
        }
    }
}
