import HushCrypto
@_spi(Vectors) @testable import HushProtocol
import HushTesting
import Testing

@Suite struct AddressTests {
    let identity = IdentityKeyPair.generate(using: DeterministicRandom(seed: "address"), storage: .wiped)

    @Test func roundTrip() throws {
        let text = identity.address.description
        #expect(text.hasPrefix("hush1"))
        #expect(text.count == HushAddress.encodedLength)
        #expect(try HushAddress(parsing: text).identityKey == identity.publicKey)
        // BIP-173 allows an all-upper-case form (QR codes use it).
        #expect(try HushAddress(parsing: text.uppercased()).identityKey == identity.publicKey)
    }

    @Test func rejectsBadChecksum() throws {
        var chars = Array(identity.address.description)
        let index = chars.count - 10
        chars[index] = chars[index] == "q" ? "p" : "q"
        #expect(throws: ProtocolError.invalidAddress(.badChecksum)) { try HushAddress(parsing: String(chars)) }
    }

    @Test func rejectsWrongPrefix() {
        let data = Bech32.convertBits([0x01] + identity.publicKey.rawRepresentation, from: 8, to: 5, pad: true)!
        #expect(throws: ProtocolError.invalidAddress(.wrongPrefix)) { try HushAddress(parsing: Bech32.encode(hrp: "hash", data: data)) }
    }

    @Test func rejectsWrongLength() {
        let short = Bech32.convertBits([0x01] + identity.publicKey.rawRepresentation.dropLast(), from: 8, to: 5, pad: true)!
        #expect(throws: ProtocolError.invalidAddress(.wrongLength)) { try HushAddress(parsing: Bech32.encode(hrp: "hush", data: short)) }
        let truncated = String(identity.address.description.dropLast())
        #expect(throws: ProtocolError.self) { try HushAddress(parsing: truncated) }
    }

    @Test func rejectsMixedCase() {
        let text = identity.address.description
        let mixed = "HUSH" + text.dropFirst(4)
        #expect(throws: ProtocolError.invalidAddress(.mixedCase)) { try HushAddress(parsing: mixed) }
    }

    @Test func rejectsInvalidCharacterAndMissingSeparator() {
        var chars = Array(identity.address.description)
        chars[10] = "b"  // not in the bech32 alphabet
        #expect(throws: ProtocolError.invalidAddress(.invalidCharacter)) { try HushAddress(parsing: String(chars)) }
        #expect(throws: ProtocolError.invalidAddress(.missingSeparator)) { try HushAddress(parsing: "hushqqqqqqqq") }
    }

    @Test func rejectsUnknownVersionAndInvalidKey() {
        let v2 = Bech32.convertBits([0x02] + identity.publicKey.rawRepresentation, from: 8, to: 5, pad: true)!
        #expect(throws: ProtocolError.invalidAddress(.unsupportedVersion)) { try HushAddress(parsing: Bech32.encode(hrp: "hush", data: v2)) }
        // The Edwards identity point (small order) has no usable X25519 counterpart.
        let smallOrder = Bech32.convertBits([0x01, 0x01] + [UInt8](repeating: 0, count: 31), from: 8, to: 5, pad: true)!
        #expect(throws: ProtocolError.invalidAddress(.invalidKey)) { try HushAddress(parsing: Bech32.encode(hrp: "hush", data: smallOrder)) }
    }

    @Test func rejectsNonZeroPadding() {
        var data = Bech32.convertBits([0x01] + identity.publicKey.rawRepresentation, from: 8, to: 5, pad: true)!
        data[data.count - 1] |= 0x01  // 264 bits in 53 groups: the last group has one padding bit
        #expect(throws: ProtocolError.invalidAddress(.badPadding)) { try HushAddress(parsing: Bech32.encode(hrp: "hush", data: data)) }
    }

    @Test func bip173ValidChecksums() throws {
        // Valid strings from BIP-173's test vectors (checksum layer only).
        for valid in ["A12UEL5L", "a12uel5l", "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
                      "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w"] {
            _ = try Bech32.decode(valid)
        }
        for invalid in ["pzry9x0s0muk", "1pzry9x0s0muk", "x1b4n0q5v", "li1dgmt3", "A1G7SGD8", "10a06t8", "1qzzfhee"] {
            #expect(throws: ProtocolError.self) { try Bech32.decode(invalid) }
        }
    }
}
