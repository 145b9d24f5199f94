import Foundation
import HushTesting
import Testing
@testable import HushCrypto

@Suite struct SecureBytesTests {
    @Test func descriptionNeverShowsBytes() {
        let secret = SecureBytes(copying: Array("canary-secret".utf8))
        #expect(!String(describing: secret).contains("canary"))
        #expect(!String(reflecting: secret).contains("canary"))
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("canary"))
        #expect(!dumped.contains("99")) // 'c' is 0x63 = 99
    }

    @Test(arguments: [SecureBytes.Storage.wiped, .guarded])
    func redactionHoldsForBothStorages(storage: SecureBytes.Storage) {
        // 0xAB repeated: neither its hex ("ab") nor decimal ("171") may appear.
        let secret = SecureBytes(copying: [UInt8](repeating: 0xAB, count: 8), storage: storage)
        for text in [String(describing: secret), String(reflecting: secret), "\(secret)"] {
            #expect(!text.lowercased().contains("abab"))
            #expect(!text.contains("171"))
            #expect(text.contains("redacted"))
        }
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("171"))
        #expect(!dumped.lowercased().contains("abab"))
        // A key holding it is redacted too (its mirror stops at the public key).
        let key = try! X25519.PrivateKey(rawRepresentation: SecureBytes(copying: [UInt8](repeating: 0xAB, count: 32)))
        var dumpedKey = ""
        dump(key, to: &dumpedKey)
        // The public key's bytes may contain 171; the scalar's run of them may not appear.
        #expect(!dumpShows([UInt8](repeating: 0xAB, count: 8), in: dumpedKey))
        #expect(!String(reflecting: key).lowercased().contains("abab"))
    }

    /// Contiguous sources take the one-copy path, others the byte loop: both give the same bytes.
    @Test func copyingFromContiguousAndOtherCollectionsGivesTheSameBytes() {
        let bytes: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let sources: [SecureBytes] = [
            SecureBytes(copying: bytes),
            SecureBytes(copying: bytes[0...]),
            SecureBytes(copying: Data(bytes)),
            bytes.withUnsafeBytes { SecureBytes(copying: $0) },
            SecureBytes(copying: bytes.lazy.map { $0 }),
            SecureBytes(copying: AnySequenceCollection(bytes)),
        ]
        for secret in sources { #expect(secret.copyBytes() == bytes) }
        #expect(SecureBytes(copying: [UInt8]()).count == 0)
        #expect(SecureBytes(copying: Data()).count == 0)
    }

    @Test func equalityComparesContentsAndLength() {
        let a = SecureBytes(copying: [1, 2, 3, 4])
        #expect(a == SecureBytes(copying: [1, 2, 3, 4]))
        #expect(a == SecureBytes(copying: [1, 2, 3, 4], storage: .guarded))
        #expect(a != SecureBytes(copying: [1, 2, 3, 5]))
        #expect(a != SecureBytes(copying: [0, 2, 3, 4]))
        #expect(a != SecureBytes(copying: [1, 2, 3]))
        #expect(SecureBytes(count: 0) == SecureBytes(copying: []))
    }

    @Test func readsBackWhatWasWritten() {
        let bytes: [UInt8] = Array(0..<40)
        let secret = SecureBytes(copying: bytes, storage: .guarded)
        #expect(secret.count == 40)
        #expect(secret.copyBytes() == bytes)
        #expect(secret.slice(10..<20).copyBytes() == Array(10..<20))
        #expect(secret.slice(0..<0).count == 0)
        #expect(SecureBytes(count: 5).copyBytes() == [0, 0, 0, 0, 0])
    }

    @Test func initialiserThatThrowsPropagatesTheError() {
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            _ = try SecureBytes(count: 4) { buffer in
                buffer[0] = 1
                throw Refused()
            }
        }
        let written = SecureBytes(count: 3) { buffer in
            for i in 0..<3 { buffer[i] = UInt8(i + 7) }
        }
        #expect(written.copyBytes() == [7, 8, 9])
    }

    @Test func randomBuffersComeFromTheSource() {
        let a = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "secure-bytes"))
        let b = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "secure-bytes"))
        let c = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "other"))
        #expect(a == b)
        #expect(a != c)
        #expect(a != SecureBytes(count: 32))
    }

    @Test func constantTimeEqualsMatchesPlainEquality() {
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        var wiped: [UInt8] = [9, 9, 9]
        ConstantTime.wipe(&wiped)
        #expect(wiped == [0, 0, 0])
    }
}

/// A collection that offers no contiguous storage (the byte-by-byte path).
private struct AnySequenceCollection: Collection {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var startIndex: Int { 0 }
    var endIndex: Int { bytes.count }
    func index(after index: Int) -> Int { index + 1 }
    subscript(position: Int) -> UInt8 { bytes[position] }
}
