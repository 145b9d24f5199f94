import HushTesting
import Testing
import HushCrypto

@Suite struct Ed25519Tests {
    let key = Ed25519.PrivateKey(using: DeterministicRandom(seed: "ed25519"))
    let message = Array("attack at dawn".utf8)

    @Test func signatureVerifies() {
        let signature = key.signature(for: message)
        #expect(signature.count == Ed25519.signatureLength)
        #expect(key.publicKey.isValidSignature(signature, for: message))
        // Ed25519 is deterministic: the same message gives the same signature.
        #expect(key.signature(for: message) == signature)
        #expect(key.publicKey.isValidSignature(key.signature(for: [UInt8]()), for: [UInt8]()))
    }

    @Test func tamperedMessageFails() {
        let signature = key.signature(for: message)
        var tampered = message
        tampered[0] ^= 0x01
        #expect(!key.publicKey.isValidSignature(signature, for: tampered))
        #expect(!key.publicKey.isValidSignature(signature, for: Array(message.dropLast())))
        #expect(!key.publicKey.isValidSignature(signature, for: message + [0]))
    }

    @Test(arguments: [0, 31, 32, 63])
    func tamperedSignatureFails(byte: Int) {
        var signature = key.signature(for: message)
        signature[byte] ^= 0x40
        #expect(!key.publicKey.isValidSignature(signature, for: message))
    }

    @Test func malformedSignaturesFail() {
        let signature = key.signature(for: message)
        #expect(!key.publicKey.isValidSignature(Array(signature.dropLast()), for: message))
        #expect(!key.publicKey.isValidSignature(signature + [0], for: message))
        #expect(!key.publicKey.isValidSignature([UInt8](), for: message))
        #expect(!key.publicKey.isValidSignature([UInt8](repeating: 0, count: 64), for: message))
    }

    @Test func anotherKeyDoesNotVerify() {
        let other = Ed25519.PrivateKey(using: DeterministicRandom(seed: "someone else"))
        #expect(!other.publicKey.isValidSignature(key.signature(for: message), for: message))
    }

    @Test func seedDeterminesTheKey() throws {
        let copy = try Ed25519.PrivateKey(seed: SecureBytes(copying: key.seed.copyBytes()))
        #expect(copy.publicKey == key.publicKey)
        #expect(throws: CryptoError.self) { _ = try Ed25519.PrivateKey(seed: SecureBytes(count: 31)) }
        #expect(throws: CryptoError.self) { _ = try Ed25519.PublicKey(rawRepresentation: [1, 2, 3]) }
    }

    @Test func privateKeyDescriptionHidesTheSeed() {
        let seedHex = key.seed.withUnsafeBytes { Hex.encode($0) }
        var dumped = ""
        dump(key, to: &dumped)
        for text in [String(describing: key), String(reflecting: key), dumped] {
            #expect(!text.contains(seedHex))
        }
        #expect(!dumpShows(key.seed.copyBytes(), in: dumped))
    }
}
