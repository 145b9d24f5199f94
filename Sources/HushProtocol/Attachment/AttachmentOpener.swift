import HushCrypto

/// Decrypts an attachment blob as its bytes arrive, in any pieces, holding at
/// most one chunk: every chunk boundary follows from the plaintext size in
/// the pointer. It refuses, at the first bad byte it can tell, a chunk that
/// does not authenticate (altered, reordered, duplicated), a final tag out of
/// place, bytes past the blob's length and non-zero padding; `finish` then
/// refuses a blob that ended early or whose SHA-256 is not the pointer's
/// digest. Plaintext it returns is unverified until `finish` succeeds:
/// callers write it where no one takes it for the file until then.
public final class AttachmentOpener {
    public let plaintextSize: UInt64
    public let blobLength: UInt64
    private let key: SecureBytes
    private let digest: [UInt8]
    private let chunks: UInt64
    private var puller: SecretStream.Puller?
    private var nextChunk: UInt64 = 0
    /// A chunk split across `consume` calls, gathered (`gathered` bytes so far).
    private let gatherBuffer = ChunkBuffer(count: AttachmentBlob.chunkSize + AttachmentBlob.chunkOverhead)
    private var gathered = 0
    /// Where each chunk is decrypted: one buffer for the whole blob.
    private let outputBuffer = ChunkBuffer(count: AttachmentBlob.chunkSize)
    private var gather: UnsafeMutableRawBufferPointer { gatherBuffer.bytes }
    private var output: UnsafeMutableRawBufferPointer { outputBuffer.bytes }
    private var received: UInt64 = 0
    /// The blob's digest, on a thread of its own beside the decryption.
    private let hasher = BackgroundSHA256()

    public init(key: SecureBytes, plaintextSize: UInt64, digest: [UInt8]) throws(ProtocolError) {
        guard key.count == SecretStream.keyLength else { throw .malformed(what: "attachment key") }
        guard digest.count == SHA256.outputLength else { throw .malformed(what: "attachment digest") }
        guard plaintextSize <= ContentLimits.maxAttachmentSize else { throw .limitExceeded(what: "attachment size") }
        self.key = key
        self.digest = digest
        self.plaintextSize = plaintextSize
        chunks = AttachmentBlob.chunkCount(plaintextSize: plaintextSize)
        blobLength = AttachmentBlob.blobLength(plaintextSize: plaintextSize)
    }

    /// Blob bytes consumed so far.
    public var bytesReceived: UInt64 { received }

    /// Takes the next blob bytes; returns the plaintext of every chunk they completed.
    public func consume(_ bytes: [UInt8]) throws(AttachmentError) -> [UInt8] {
        try AttachmentBlob.collecting { emit in try bytes.withUnsafeBytes { try consume($0, plaintext: emit) } }
    }

    /// Takes the next blob bytes, in place, and hands `plaintext` each chunk
    /// they completed, decrypted into a buffer the opener reuses (valid only
    /// during the call): no array per piece or per chunk. Whole chunks are
    /// decrypted straight from `bytes`; only a chunk split across calls is
    /// gathered first. Throws an `AttachmentError`, or what `plaintext` threw.
    public func consume(_ bytes: UnsafeRawBufferPointer, plaintext: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard received + UInt64(bytes.count) <= blobLength else { throw AttachmentError.tooLong }
        received += UInt64(bytes.count)
        hasher.update(bytes)
        var offset = 0
        while offset < bytes.count {
            if nextChunk == chunks {
                // Padding: everything after the final chunk must be zero.
                guard Self.allZero(UnsafeRawBufferPointer(rebasing: bytes[offset...])) else { throw AttachmentError.badPadding }
                break
            }
            let need = puller == nil ? AttachmentBlob.headerLength
                : AttachmentBlob.plaintextLength(ofChunk: nextChunk, plaintextSize: plaintextSize) + AttachmentBlob.chunkOverhead
            let take = min(need - gathered, bytes.count - offset)
            // Whole pieces straight from the caller's bytes; partial ones gather in `gather`.
            if gathered == 0 && take == need {
                try process(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take]), plaintext: plaintext)
            } else {
                UnsafeMutableRawBufferPointer(rebasing: gather[gathered..<gathered + take])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take]))
                gathered += take
                if gathered == need {
                    gathered = 0
                    try process(UnsafeRawBufferPointer(rebasing: gather[..<need]), plaintext: plaintext)
                }
            }
            offset += take
        }
    }

    /// A whole header or a whole chunk.
    private func process(_ piece: UnsafeRawBufferPointer, plaintext: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let puller else {
            do { puller = try SecretStream.Puller(key: key, header: Array(piece)) } catch { throw AttachmentError.chunkRejected(index: 0) }
            return
        }
        let index = nextChunk
        let opened: (count: Int, tag: SecretStream.Tag)
        do { opened = try puller.pull(piece, into: output) } catch { throw AttachmentError.chunkRejected(index: index) }
        let last = index + 1 == chunks
        guard opened.tag == (last ? .final : .message) else { throw AttachmentError.chunkRejected(index: index) }
        nextChunk += 1
        try plaintext(UnsafeRawBufferPointer(rebasing: output[..<opened.count]))
    }

    /// Whether every byte is zero, a word at a time.
    private static func allZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var accumulated: UInt64 = 0
        var offset = 0
        while offset + 8 <= bytes.count {
            accumulated |= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            accumulated |= UInt64(bytes[offset])
            offset += 1
        }
        return accumulated == 0
    }

    /// Checks that the whole blob arrived and matches the pointer's digest.
    /// Only after this may the plaintext be treated as the file.
    public func finish() throws(AttachmentError) {
        guard nextChunk == chunks, received == blobLength else { throw .truncated }
        guard ConstantTime.equals(hasher.finalize(), digest) else { throw .digestMismatch }
    }
}
