import HushTesting
import Testing
import HushCrypto

@Suite struct XChaCha20Poly1305Tests {
    let random = DeterministicRandom(seed: "xchacha")
    var key: SecureBytes { SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "xchacha-key")) }
    let nonce = [UInt8](repeating: 0x24, count: 24)
    let plaintext = Array("the relay never reads this".utf8)
    let aad = Array("header".utf8)

    @Test func roundTrips() throws {
        let sealed = try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        #expect(sealed.count == plaintext.count + XChaCha20Poly1305.tagLength)
        #expect(Array(sealed.prefix(plaintext.count)) != plaintext)
        #expect(try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad) == plaintext)
        let empty = try XChaCha20Poly1305.seal([UInt8](), key: key, nonce: nonce, associatedData: [UInt8]())
        #expect(empty.count == 16)
        #expect(try XChaCha20Poly1305.open(empty, key: key, nonce: nonce, associatedData: [UInt8]()) == [])
    }

    @Test func tamperedTagFails() throws {
        var sealed = try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        sealed[sealed.count - 1] ^= 0x01
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad)
        }
    }

    @Test func tamperedCiphertextFails() throws {
        var sealed = try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        sealed[0] ^= 0x80
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad)
        }
    }

    @Test func wrongAssociatedDataFails() throws {
        let sealed = try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: Array("headex".utf8))
        }
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: [UInt8]())
        }
    }

    @Test(arguments: [1, 16, 17, 42])
    func truncatedCiphertextFails(dropping: Int) throws {
        let sealed = try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try XChaCha20Poly1305.open(Array(sealed.dropLast(dropping)), key: key, nonce: nonce, associatedData: aad)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try XChaCha20Poly1305.open(Array(sealed.dropFirst(dropping)), key: key, nonce: nonce, associatedData: aad)
        }
    }

    @Test func wrongKeyOrNonceFails() throws {
        let sealed = try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)
        let otherKey = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "other key"))
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try XChaCha20Poly1305.open(sealed, key: otherKey, nonce: nonce, associatedData: aad)
        }
        var otherNonce = nonce
        otherNonce[23] ^= 1
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try XChaCha20Poly1305.open(sealed, key: key, nonce: otherNonce, associatedData: aad)
        }
    }

    @Test func wrongSizesAreRefusedBeforeUse() {
        #expect(throws: CryptoError.invalidLength(what: "XChaCha20-Poly1305 key", expected: 32, actual: 16)) {
            _ = try XChaCha20Poly1305.seal(plaintext, key: SecureBytes(count: 16), nonce: nonce, associatedData: aad)
        }
        #expect(throws: CryptoError.invalidLength(what: "XChaCha20-Poly1305 nonce", expected: 24, actual: 12)) {
            _ = try XChaCha20Poly1305.open([UInt8](repeating: 0, count: 32), key: key, nonce: Array(nonce.prefix(12)), associatedData: aad)
        }
    }

    @Test func bufferFormMatchesTheArrayFormAndReusesItsBuffer() throws {
        var sealed = [UInt8](repeating: 0xEE, count: 3) // wrong size and contents: must be replaced
        try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad, into: &sealed)
        #expect(sealed == (try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad)))
        var opened = [UInt8](repeating: 0xEE, count: 500)
        try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad, into: &opened)
        #expect(opened == plaintext)
        // A shorter message into the same buffers.
        try XChaCha20Poly1305.seal([1, 2] as [UInt8], key: key, nonce: nonce, associatedData: aad, into: &sealed)
        try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad, into: &opened)
        #expect(opened == [1, 2])
    }

    @Test func bufferFormFailsLikeTheArrayFormAndLeavesNothing() throws {
        var sealed = [UInt8]()
        try XChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: aad, into: &sealed)
        sealed[sealed.count - 1] ^= 1
        var opened = Array("previous plaintext".utf8)
        #expect(throws: CryptoError.authenticationFailed) {
            try XChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: aad, into: &opened)
        }
        #expect(opened.isEmpty)
        #expect(throws: CryptoError.authenticationFailed) {
            try XChaCha20Poly1305.open(Array(sealed.prefix(15)), key: key, nonce: nonce, associatedData: aad, into: &opened)
        }
        #expect(throws: CryptoError.self) {
            try XChaCha20Poly1305.seal(plaintext, key: SecureBytes(count: 31), nonce: nonce, associatedData: aad, into: &opened)
        }
    }

    @Test func combinedFormCarriesItsNonce() throws {
        let a = try XChaCha20Poly1305.sealCombined(plaintext, key: key, associatedData: aad, using: random)
        let b = try XChaCha20Poly1305.sealCombined(plaintext, key: key, associatedData: aad, using: random)
        #expect(a != b) // fresh nonce each time
        #expect(try XChaCha20Poly1305.openCombined(a, key: key, associatedData: aad) == plaintext)
        #expect(try XChaCha20Poly1305.openCombined(b, key: key, associatedData: aad) == plaintext)
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try XChaCha20Poly1305.openCombined(Array(a.prefix(39)), key: key, associatedData: aad)
        }
    }
}

@Suite struct ChaCha20Poly1305Tests {
    let key = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "chacha-key"))
    let nonce = [UInt8](repeating: 7, count: 12)

    @Test func roundTripsAndRejectsTampering() throws {
        let plaintext = Array("twelve-byte nonce".utf8)
        var sealed = try ChaCha20Poly1305.seal(plaintext, key: key, nonce: nonce, associatedData: [1, 2] as [UInt8])
        #expect(try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: [1, 2] as [UInt8]) == plaintext)
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: [1, 3] as [UInt8])
        }
        sealed[5] ^= 4
        #expect(throws: CryptoError.authenticationFailed) {
            _ = try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: [1, 2] as [UInt8])
        }
        #expect(throws: CryptoError.self) {
            _ = try ChaCha20Poly1305.seal(plaintext, key: key, nonce: [UInt8](repeating: 0, count: 24), associatedData: [UInt8]())
        }
    }
}
