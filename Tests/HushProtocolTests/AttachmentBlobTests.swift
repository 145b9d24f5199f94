import HushCrypto
@testable import HushProtocol
import HushTesting
import Testing

/// Attachment blobs (docs/PROTOCOL.md §10.3): round trips at the chunk
/// boundaries, and every way a blob can be damaged refused with its reason.
@Suite struct AttachmentBlobTests {
    let key = SecureBytes(copying: [UInt8](repeating: 7, count: 32))
    let chunk = AttachmentBlob.chunkSize

    func file(_ length: Int) -> [UInt8] { (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 5) } }

    /// The blob for `file`, and its digest.
    func seal(_ file: [UInt8]) throws -> (blob: [UInt8], digest: [UInt8]) {
        let sealer = try AttachmentSealer(key: key, plaintextSize: UInt64(file.count))
        var blob = try sealer.sealAll(file)
        blob += [UInt8](repeating: 0, count: Int(sealer.paddingLength))
        #expect(UInt64(blob.count) == sealer.blobLength)
        return (blob, try sealer.digest())
    }

    func open(_ blob: [UInt8], size: Int, digest: [UInt8], piece: Int = 4_093) throws -> [UInt8] {
        let opener = try AttachmentOpener(key: key, plaintextSize: UInt64(size), digest: digest)
        var out: [UInt8] = []
        var offset = 0
        while offset < blob.count {
            let end = min(offset + piece, blob.count)
            out += try opener.consume(Array(blob[offset..<end]))
            offset = end
        }
        try opener.finish()
        return out
    }

    @Test(arguments: [0, 1, 100, 65_535, 65_536, 65_537, 3 * 65_536 + 17])
    func roundTrip(length: Int) throws {
        let plain = file(length)
        let (blob, digest) = try seal(plain)
        #expect(try open(blob, size: length, digest: digest) == plain)
        #expect(try open(blob, size: length, digest: digest, piece: blob.count) == plain)
        #expect(blob.count >= Int(AttachmentBlob.minimumBlobLength))
        #expect(UInt64(blob.count) == AttachmentBlob.blobLength(plaintextSize: UInt64(length)))
    }

    /// Sizes in one Padmé bucket give blobs of one length: the relay learns the bucket only.
    /// The in-place form (chunks decrypted into the opener's buffer, handed
    /// to a closure) gives the same plaintext and digest, and the digest (on
    /// its own thread) matches SHA-256 of the blob.
    @Test func inPlaceOpeningMatchesAndDigestIsTheBlobsSHA256() throws {
        let plain = file(5 * chunk + 99)
        let (blob, digest) = try seal(plain)
        #expect(digest == SHA256.hash(blob))
        let opener = try AttachmentOpener(key: key, plaintextSize: UInt64(plain.count), digest: digest)
        var out: [UInt8] = []
        for start in stride(from: 0, to: blob.count, by: 70_001) {
            try blob[start..<min(start + 70_001, blob.count)].withUnsafeBytes { try opener.consume($0) { out += $0 } }
        }
        try opener.finish()
        #expect(out == plain)
    }

    /// An opener or sealer dropped half-way (a damaged part file read back,
    /// a failed send) while its digest is still being computed: no crash, no wait.
    @Test func droppedHalfWayWhileHashing() throws {
        let plain = file(4 * chunk)
        let (blob, digest) = try seal(plain)
        for round in 0..<50 {
            let opener = try AttachmentOpener(key: key, plaintextSize: UInt64(plain.count), digest: digest)
            _ = try opener.consume(Array(blob[..<(chunk * (1 + round % 3))]))
            let sealer = try AttachmentSealer(key: key, plaintextSize: UInt64(plain.count))
            _ = try sealer.seal(plain[..<chunk])
        }
    }

    @Test func sizesInABucketLookAlike() throws {
        #expect(AttachmentBlob.blobLength(plaintextSize: 0) == AttachmentBlob.blobLength(plaintextSize: 3_000))
        #expect(AttachmentBlob.blobLength(plaintextSize: 1_000_000) == AttachmentBlob.blobLength(plaintextSize: 1_000_100))
        let big = AttachmentBlob.blobLength(plaintextSize: 100_000_000)
        #expect(big >= AttachmentBlob.sealedLength(plaintextSize: 100_000_000))
        #expect(Double(big) <= Double(AttachmentBlob.sealedLength(plaintextSize: 100_000_000)) * 1.12)
    }

    /// Byte range of chunk `index` inside a blob.
    func chunkRange(_ index: Int, size: Int) -> Range<Int> {
        let start = AttachmentBlob.headerLength + index * (chunk + AttachmentBlob.chunkOverhead)
        let plain = min(chunk, size - index * chunk)
        return start..<start + plain + AttachmentBlob.chunkOverhead
    }

    @Test func tamperedChunkIsRefused() throws {
        let size = 2 * chunk + 10
        var (blob, digest) = try seal(file(size))
        blob[chunkRange(1, size: size).lowerBound + 5] ^= 1
        #expect(throws: AttachmentError.chunkRejected(index: 1)) { try open(blob, size: size, digest: digest) }
    }

    @Test func reorderedChunksAreRefused() throws {
        let size = 3 * chunk
        var (blob, digest) = try seal(file(size))
        let first = Array(blob[chunkRange(0, size: size)]), second = Array(blob[chunkRange(1, size: size)])
        blob.replaceSubrange(chunkRange(0, size: size), with: second)
        blob.replaceSubrange(chunkRange(1, size: size), with: first)
        #expect(throws: AttachmentError.chunkRejected(index: 0)) { try open(blob, size: size, digest: digest) }
    }

    @Test func duplicatedChunkIsRefused() throws {
        let size = 3 * chunk
        var (blob, digest) = try seal(file(size))
        blob.replaceSubrange(chunkRange(1, size: size), with: Array(blob[chunkRange(0, size: size)]))
        #expect(throws: AttachmentError.chunkRejected(index: 1)) { try open(blob, size: size, digest: digest) }
    }

    @Test func truncatedBlobIsRefused() throws {
        let size = 2 * chunk + 10
        let (blob, digest) = try seal(file(size))
        // Cut after the first chunk, and cut inside the padding.
        #expect(throws: AttachmentError.truncated) { try open(Array(blob[..<chunkRange(1, size: size).lowerBound]), size: size, digest: digest) }
        #expect(throws: AttachmentError.truncated) { try open(Array(blob.dropLast()), size: size, digest: digest) }
    }

    /// A blob cut after a chunk and given a final tag cannot pass either: the
    /// pointer's size says more chunks follow.
    @Test func finalChunkTooEarlyIsRefused() throws {
        let sealer = try AttachmentSealer(key: key, plaintextSize: UInt64(chunk))
        let short = try sealer.seal(file(chunk))
        let (_, digest) = try seal(file(2 * chunk))
        #expect(throws: AttachmentError.chunkRejected(index: 0)) { try open(short, size: 2 * chunk, digest: digest) }
    }

    @Test func paddingDigestAndLength() throws {
        let size = 100
        let (blob, digest) = try seal(file(size))
        var badPadding = blob
        badPadding[badPadding.count - 1] = 1
        #expect(throws: AttachmentError.badPadding) { try open(badPadding, size: size, digest: digest) }
        #expect(throws: AttachmentError.tooLong) { try open(blob + [0], size: size, digest: digest) }
        var otherDigest = digest
        otherDigest[0] ^= 1
        #expect(throws: AttachmentError.digestMismatch) { try open(blob, size: size, digest: otherDigest) }
        let wrongKey = try AttachmentOpener(key: SecureBytes(copying: [UInt8](repeating: 8, count: 32)), plaintextSize: UInt64(size), digest: digest)
        #expect(throws: AttachmentError.chunkRejected(index: 0)) { _ = try wrongKey.consume(blob) }
    }

    @Test func sealerRefusesWrongChunkLengths() throws {
        let sealer = try AttachmentSealer(key: key, plaintextSize: UInt64(chunk + 1))
        #expect(throws: AttachmentError.self) { _ = try sealer.seal(file(10)) }
        #expect(throws: AttachmentError.self) { _ = try sealer.digest() }
    }

    @Test func pointerKeepsItsKeyOutOfDescriptions() throws {
        let pointer = try AttachmentPointer(key: key, digest: [UInt8](repeating: 1, count: 32), size: 5, blobID: [0x61],
                                            fileName: "a.txt", mediaType: "text/plain")
        #expect(!String(describing: pointer).contains("0707"))
        #expect(!String(reflecting: pointer).contains("7, 7"))
    }
}
