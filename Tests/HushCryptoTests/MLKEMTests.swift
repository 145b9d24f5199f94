import HushCrypto
import HushTesting
import Testing

/// HushCrypto's ML-KEM-768 wrapper: seeded keys, agreement, implicit
/// rejection, length checks before use, and no secret in a description.
@Suite struct MLKEMTests {
    @Test func encapsulationAndDecapsulationAgree() throws {
        let key = MLKEM.PrivateKey(using: DeterministicRandom(seed: "mlkem-agree"))
        #expect(key.publicKey.count == MLKEM.publicKeyLength)
        let sent = try MLKEM.encapsulate(to: key.publicKey)
        #expect(sent.ciphertext.count == MLKEM.ciphertextLength)
        #expect(try key.decapsulate(sent.ciphertext) == sent.sharedSecret)
    }

    @Test func theSeedDeterminesTheKey() throws {
        let seed = SecureBytes(randomCount: MLKEM.seedLength, using: DeterministicRandom(seed: "mlkem-seed"))
        let a = try MLKEM.PrivateKey(seed: seed)
        let b = try MLKEM.PrivateKey(seed: SecureBytes(copying: seed.copyBytes()))
        #expect(a.publicKey == b.publicKey)
        #expect(a.publicKey != MLKEM.PrivateKey(using: DeterministicRandom(seed: "other")).publicKey)
    }

    /// A damaged ciphertext is not an error (FIPS 203 implicit rejection): it
    /// yields an unrelated secret, so the session fails later at the AEAD.
    @Test func aTamperedCiphertextYieldsAnUnrelatedSecret() throws {
        let key = MLKEM.PrivateKey(using: DeterministicRandom(seed: "mlkem-tamper"))
        let sent = try MLKEM.encapsulate(to: key.publicKey)
        var damaged = sent.ciphertext
        damaged[17] ^= 0x01
        #expect(try key.decapsulate(damaged) != sent.sharedSecret)
    }

    @Test func wrongLengthsAreRefusedBeforeUse() throws {
        let key = MLKEM.PrivateKey(using: DeterministicRandom(seed: "mlkem-lengths"))
        #expect(throws: CryptoError.self) { try MLKEM.encapsulate(to: Array(key.publicKey.dropLast())) }
        #expect(throws: CryptoError.self) { try key.decapsulate([UInt8](repeating: 0, count: MLKEM.ciphertextLength - 1)) }
        #expect(throws: CryptoError.self) { try MLKEM.PrivateKey(seed: SecureBytes(count: 32)) }
        #expect(throws: CryptoError.self) { try MLKEM.Encapsulation(ciphertext: [1, 2, 3], sharedSecret: SecureBytes(count: 32)) }
    }

    @Test func descriptionsNeverShowTheSecrets() throws {
        let key = MLKEM.PrivateKey(using: DeterministicRandom(seed: "mlkem-redact"))
        let sent = try MLKEM.encapsulate(to: key.publicKey)
        let seedHex = Hex.encode(key.seed.copyBytes()), secretHex = Hex.encode(sent.sharedSecret.copyBytes())
        for text in [String(describing: key), String(reflecting: key), String(describing: sent), String(reflecting: sent)] {
            #expect(!text.contains(seedHex) && !text.contains(secretHex), "\(text)")
        }
    }
}
