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
    private var buffer: [UInt8] = []
    private var received: UInt64 = 0
    private var hasher = SHA256.Hasher()

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
        guard received + UInt64(bytes.count) <= blobLength else { throw .tooLong }
        received += UInt64(bytes.count)
        hasher.update(bytes)
        var plaintext: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            if nextChunk == chunks {
                // Padding: everything after the final chunk must be zero.
                guard bytes[offset...].allSatisfy({ $0 == 0 }) else { throw .badPadding }
                break
            }
            let need = puller == nil ? AttachmentBlob.headerLength
                : AttachmentBlob.plaintextLength(ofChunk: nextChunk, plaintextSize: plaintextSize) + AttachmentBlob.chunkOverhead
            let take = min(need - buffer.count, bytes.count - offset)
            // Whole pieces straight from the caller's array; partial ones gather in `buffer`.
            if buffer.isEmpty && take == need {
                try process(bytes[offset..<offset + take], into: &plaintext)
            } else {
                buffer += bytes[offset..<offset + take]
                if buffer.count == need {
                    let piece = buffer
                    buffer.removeAll(keepingCapacity: true)
                    try process(piece[...], into: &plaintext)
                }
            }
            offset += take
        }
        return plaintext
    }

    /// A whole header or a whole chunk.
    private func process(_ piece: ArraySlice<UInt8>, into plaintext: inout [UInt8]) throws(AttachmentError) {
        guard let puller else {
            do { puller = try SecretStream.Puller(key: key, header: Array(piece)) } catch { throw .chunkRejected(index: 0) }
            return
        }
        let index = nextChunk
        let opened: (plaintext: [UInt8], tag: SecretStream.Tag)
        do { opened = try puller.pull(piece) } catch { throw .chunkRejected(index: index) }
        let last = index + 1 == chunks
        guard opened.tag == (last ? .final : .message) else { throw .chunkRejected(index: index) }
        nextChunk += 1
        plaintext += opened.plaintext
    }

    /// Checks that the whole blob arrived and matches the pointer's digest.
    /// Only after this may the plaintext be treated as the file.
    public func finish() throws(AttachmentError) {
        guard nextChunk == chunks, received == blobLength else { throw .truncated }
        guard ConstantTime.equals(hasher.finalize(), digest) else { throw .digestMismatch }
    }
}
