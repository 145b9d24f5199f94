import HushTesting
import Testing
import HushCrypto

/// Key blinding (docs/PROTOCOL.md §20.9): a blinded key is computed from the
/// public key alone, only the seed signs for it, its signatures are plain
/// Ed25519 ones, and it shows nothing of the key it came from.
@Suite struct Ed25519BlindingTests {
    let key = Ed25519.PrivateKey(using: DeterministicRandom(seed: "blinding"))
    let label = Array("test/blind".utf8) + [0]
    let prefixLabel = Array("test/blind-prefix".utf8) + [0]
    let message = Array("a directory write".utf8)

    @Test func theSeedSignsForTheKeyAnyoneDerives() throws {
        let signing = try Ed25519Blinding.SigningKey(label: label, prefixLabel: prefixLabel, privateKey: key)
        let derived = try Ed25519Blinding.blindedKey(label: label, publicKey: key.publicKey)
        #expect(signing.publicKey == derived)
        let signature = signing.signature(for: message)
        #expect(derived.isValidSignature(signature, for: message))
        #expect(signing.signature(for: message) == signature, "deterministic, as RFC 8032 signing is")
        var tampered = message
        tampered[0] ^= 1
        #expect(!derived.isValidSignature(signature, for: tampered))
    }

    @Test func theBlindedKeyIsNeitherTheKeyNorAnotherLabelsOrKeys() throws {
        let blinded = try Ed25519Blinding.blindedKey(label: label, publicKey: key.publicKey)
        #expect(blinded != key.publicKey)
        #expect(try Ed25519Blinding.blindedKey(label: Array("test/other".utf8) + [0], publicKey: key.publicKey) != blinded)
        let other = Ed25519.PrivateKey(using: DeterministicRandom(seed: "someone else"))
        #expect(try Ed25519Blinding.blindedKey(label: label, publicKey: other.publicKey) != blinded)
        // Signatures do not cross between the key and its blinded form.
        let signing = try Ed25519Blinding.SigningKey(label: label, prefixLabel: prefixLabel, privateKey: key)
        #expect(!key.publicKey.isValidSignature(signing.signature(for: message), for: message))
        #expect(!blinded.isValidSignature(key.signature(for: message), for: message))
        #expect(!blinded.isValidSignature(try Ed25519Blinding.SigningKey(label: label, prefixLabel: prefixLabel, privateKey: other)
            .signature(for: message), for: message))
    }

    @Test func aKeyThatIsNotAPointOfPrimeOrderIsRefused() throws {
        // The identity point (y = 1) and a small-order point: strict verification refuses both as signers.
        var identity = [UInt8](repeating: 0, count: 32)
        identity[0] = 1
        #expect(throws: CryptoError.self) { _ = try Ed25519Blinding.blindedKey(label: label, publicKey: try Ed25519.PublicKey(rawRepresentation: identity)) }
        #expect(throws: CryptoError.self) {
            _ = try Ed25519Blinding.blindedKey(label: label, publicKey: try Ed25519.PublicKey(rawRepresentation: [UInt8](repeating: 0, count: 32)))
        }
    }

    @Test func theSigningKeyDescriptionHidesTheScalar() throws {
        let signing = try Ed25519Blinding.SigningKey(label: label, prefixLabel: prefixLabel, privateKey: key)
        var dumped = ""
        dump(signing, to: &dumped)
        for text in [String(describing: signing), String(reflecting: signing), dumped] {
            #expect(text.contains("redacted"))
            #expect(!text.contains(key.seed.withUnsafeBytes { Hex.encode($0) }))
        }
    }
}
