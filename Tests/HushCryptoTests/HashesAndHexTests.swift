import Testing
import HushCrypto

/// Known answers for "abc" from FIPS 180-2 appendix B/C and RFC 7693 appendix A.
@Suite struct HashesTests {
    let abc = Array("abc".utf8)

    @Test func sha256KnownAnswer() throws {
        #expect(SHA256.hash(abc) == (try Hex.decode("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")))
    }

    /// The incremental SHA-256 (BoringSSL) and the one-shot one (libsodium)
    /// agree: on the known answer in pieces, and on 1 MiB fed in odd sizes.
    @Test func sha256IncrementalFormAgreesWithTheOneShot() throws {
        var hasher = SHA256.Hasher()
        hasher.update([0x61, 0x62] as [UInt8])
        hasher.update([UInt8]())
        hasher.update([0x63] as [UInt8])
        #expect(hasher.finalize() == SHA256.hash(abc))
        let data = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        var pieces = SHA256.Hasher(), offset = 0, size = 1
        while offset < data.count {
            let end = min(data.count, offset + size)
            pieces.update(Array(data[offset..<end]))
            offset = end
            size = size * 3 % 70_001 + 1
        }
        #expect(pieces.finalize() == SHA256.hash(data))
    }

    @Test func sha512KnownAnswerAndIncrementalForm() throws {
        let expected = try Hex.decode("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        #expect(SHA512.hash(abc) == expected)
        var hasher = SHA512.Hasher()
        hasher.update([0x61] as [UInt8])
        hasher.update([UInt8]())
        hasher.update([0x62, 0x63] as [UInt8])
        #expect(hasher.finalize() == expected)
    }

    @Test func blake2bKnownAnswerAndKeys() throws {
        let expected = try Hex.decode("ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923")
        #expect(BLAKE2b.hash(abc, outputLength: 64) == expected)
        #expect(BLAKE2b.hash(abc).count == 32)
        #expect(try BLAKE2b.hash(abc, key: [1] as [UInt8]) != BLAKE2b.hash(abc))
        #expect(throws: CryptoError.self) { _ = try BLAKE2b.hash(abc, key: [UInt8](repeating: 1, count: 65)) }
    }
}

@Suite struct HexTests {
    @Test func roundTripsAndAcceptsUpperCase() throws {
        let bytes: [UInt8] = [0x00, 0x0f, 0xa5, 0xff]
        #expect(Hex.encode(bytes) == "000fa5ff")
        #expect(try Hex.decode("000fa5ff") == bytes)
        #expect(try Hex.decode("000FA5FF") == bytes)
        #expect(try Hex.decode("") == [])
    }

    @Test(arguments: ["0", "abc", "zz", "0g", " 00"])
    func malformedHexIsRefused(text: String) {
        #expect(throws: CryptoError.self) { _ = try Hex.decode(text) }
    }
}
