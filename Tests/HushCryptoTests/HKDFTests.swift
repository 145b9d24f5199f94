import HushTesting
import Testing
import HushCrypto

@Suite struct HKDFTests {
    let ikm = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "hkdf-ikm"))

    @Test func outputLengthIsBoundedBy255Blocks() throws {
        #expect(HKDF.maximumOutputLength == 255 * 32)
        let longest = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](), info: [UInt8](), length: 255 * 32)
        #expect(longest.count == 8160)
        #expect(throws: CryptoError.self) {
            _ = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](), info: [UInt8](), length: 255 * 32 + 1)
        }
        #expect(throws: CryptoError.self) {
            _ = try HKDF.expand(pseudoRandomKey: ikm, info: [UInt8](), length: -1)
        }
        #expect(try HKDF.expand(pseudoRandomKey: ikm, info: [UInt8](), length: 0).count == 0)
    }

    @Test func shorterOutputIsAPrefixOfLonger() throws {
        let info = Array("hush test".utf8)
        let long = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [1, 2, 3] as [UInt8], info: info, length: 100).copyBytes()
        for length in [1, 31, 32, 33, 64, 65] {
            let short = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [1, 2, 3] as [UInt8], info: info, length: length).copyBytes()
            #expect(short == Array(long.prefix(length)))
        }
    }

    @Test func everyInputChangesTheOutput() throws {
        let base = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [1] as [UInt8], info: [2] as [UInt8], length: 32)
        #expect(try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [9] as [UInt8], info: [2] as [UInt8], length: 32) != base)
        #expect(try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [1] as [UInt8], info: [9] as [UInt8], length: 32) != base)
        #expect(try HKDF.deriveKey(inputKeyMaterial: [0] as [UInt8], salt: [1] as [UInt8], info: [2] as [UInt8], length: 32) != base)
    }

    @Test func emptySaltActsAsHashLengthZeros() {
        // RFC 5869 section 2.2: salt not provided = HashLen zero bytes.
        #expect(HKDF.extract(salt: [UInt8](), inputKeyMaterial: ikm) == HKDF.extract(salt: [UInt8](repeating: 0, count: 32), inputKeyMaterial: ikm))
    }

    @Test func expandFollowsTheRFCConstruction() throws {
        // T(1) = HMAC(PRK, info || 0x01), T(2) = HMAC(PRK, T(1) || info || 0x02).
        let prk = HKDF.extract(salt: [7] as [UInt8], inputKeyMaterial: ikm)
        let info: [UInt8] = [0xAA, 0xBB]
        let t1 = HMACSHA256.authenticationCode(for: info + [1], key: prk)
        let t2 = HMACSHA256.authenticationCode(for: t1 + info + [2], key: prk)
        #expect(try HKDF.expand(pseudoRandomKey: prk, info: info, length: 64).copyBytes() == t1 + t2)
    }
}
