import Foundation
import HushTesting
import Testing
import HushCrypto
@_spi(Fuzzing) @testable import HushKeystore

@Suite struct KeystoreFormatTests {
    let cost = Argon2id.Cost.insecureTestOnly
    let passphrase = SecureBytes(copying: Array("format test".utf8))

    func sealed(_ contents: KeystoreContents? = nil) throws -> [UInt8] {
        try KeystoreFile.seal(contents ?? KeystoreContents.generate(createdAt: 42, using: DeterministicRandom(seed: "f")),
                              passphrase: passphrase, cost: cost, random: DeterministicRandom(seed: "nonce"))
    }

    @Test func headerLayoutIsAsDocumented() throws {
        let file = try sealed()
        #expect(Array(file[0..<8]) == Array("HUSHKEYS".utf8))
        #expect(file[8] == 1 && file[9] == 1)
        #expect(readBigEndian32(file, at: 10) == cost.operations)
        #expect(UInt64(readBigEndian32(file, at: 14)) << 10 == cost.memoryBytes)
        #expect(file.count > KeystoreHeader.length + XChaCha20Poly1305.tagLength)
    }

    @Test func everyFlippedHeaderByteIsRejected() throws {
        let file = try sealed()
        for index in 0..<KeystoreHeader.length {
            var tampered = file
            tampered[index] ^= 0x01
            #expect(throws: KeystoreError.self) { _ = try KeystoreFile.open(tampered, passphrase: passphrase, path: "k") }
        }
    }

    @Test func newerVersionIsReportedAsSuch() throws {
        var file = try sealed()
        file[8] = 2
        #expect(throws: KeystoreError.newerVersion(found: 2, supported: 1)) {
            _ = try KeystoreFile.open(file, passphrase: passphrase, path: "k")
        }
    }

    @Test func truncatedOrForeignFilesAreDamaged() throws {
        let file = try sealed()
        for length in [0, 4, 8, 9, KeystoreHeader.length, KeystoreHeader.length + 10] {
            #expect(throws: KeystoreError.damaged(path: "k")) {
                _ = try KeystoreFile.open(Array(file[0..<length]), passphrase: passphrase, path: "k")
            }
        }
        #expect(throws: KeystoreError.damaged(path: "k")) {
            _ = try KeystoreFile.open(Array("SQLite format 3\0 and more bytes than a header holds, padding padding".utf8),
                                      passphrase: passphrase, path: "k")
        }
    }

    @Test func costsOutsideTheBoundsAreRefusedBeforeAnyWork() throws {
        var file = try sealed()
        // 4 GiB of memory, as a crafted file might ask.
        file[14] = 0x00; file[15] = 0x40; file[16] = 0x00; file[17] = 0x00
        #expect(throws: KeystoreError.damaged(path: "k")) { _ = try KeystoreFile.open(file, passphrase: passphrase, path: "k") }
        var passes = try sealed()
        passes[10] = 0xff
        #expect(throws: KeystoreError.damaged(path: "k")) { _ = try KeystoreFile.open(passes, passphrase: passphrase, path: "k") }
    }

    @Test func payloadDecodingIsStrict() throws {
        let good = KeystoreContents.generate(createdAt: 7, using: DeterministicRandom(seed: "p")).encoded()
        let bytes = good.copyBytes()
        _ = try KeystoreContents(decoding: good, path: "k")
        var cases: [[UInt8]] = []
        cases.append(bytes + [0])                       // trailing byte
        cases.append(Array(bytes.dropLast()))           // truncated value
        cases.append(Array(bytes[36...]))               // identity seed missing
        var wrongLength = bytes; wrongLength[3] = 31     // seed length 31
        cases.append(wrongLength)
        var unknownLowType = bytes; unknownLowType[36 + 36 + 1] = 9   // type 9 is reserved and unknown
        cases.append(unknownLowType)
        cases.append(Array(bytes[36..<72]) + Array(bytes[0..<36]) + Array(bytes[72...]))   // out of order
        for bad in cases {
            #expect(throws: KeystoreError.damaged(path: "k")) {
                _ = try KeystoreContents(decoding: SecureBytes(copying: bad), path: "k")
            }
        }
    }

    @Test func additionalEntriesSurviveARewrap() throws {
        let extra = SecureBytes(copying: [1, 2, 3])
        let base = KeystoreContents.generate(createdAt: 9, using: DeterministicRandom(seed: "a"))
        let contents = KeystoreContents(identitySeed: base.identitySeed, databaseKey: base.databaseKey, createdAt: 9,
                                        additional: [0x100: extra])
        let opened = try KeystoreFile.open(try sealed(contents), passphrase: passphrase, path: "k")
        #expect(opened.additional[0x100] == extra)
    }
}
