@_spi(Vectors) import HushCrypto

/// Encrypts a file into an attachment blob chunk by chunk (`AttachmentBlob`),
/// so memory stays at one chunk whatever the file's size. Feed it the file in
/// `AttachmentBlob.chunkSize` pieces (the last one shorter), write what each
/// call returns, then write `paddingLength` zero bytes; `digest` is then the
/// blob's SHA-256 for the pointer.
public final class AttachmentSealer {
    public let plaintextSize: UInt64
    public let blobLength: UInt64
    private let pusher: SecretStream.Pusher
    private let chunks: UInt64
    private var nextChunk: UInt64 = 0
    /// The blob's digest, on a thread of its own beside the encryption.
    private let hasher = BackgroundSHA256()
    private var headerWritten = false
    /// Where each chunk is sealed, after room for the header: one buffer for the whole blob.
    private let output = ChunkBuffer(count: AttachmentBlob.headerLength + AttachmentBlob.chunkSize + AttachmentBlob.chunkOverhead)

    /// A sealer with a fresh random header.
    public convenience init(key: SecureBytes, plaintextSize: UInt64) throws(ProtocolError) {
        let pusher: SecretStream.Pusher
        do { pusher = try SecretStream.Pusher(key: key) } catch { throw .crypto(error) }
        try self.init(pusher: pusher, plaintextSize: plaintextSize)
    }

    /// A sealer with a given header: for test vectors only.
    @_spi(Vectors)
    public convenience init(key: SecureBytes, plaintextSize: UInt64, fixedHeader: [UInt8]) throws(ProtocolError) {
        let pusher: SecretStream.Pusher
        do { pusher = try SecretStream.Pusher(key: key, fixedHeader: fixedHeader) } catch { throw .crypto(error) }
        try self.init(pusher: pusher, plaintextSize: plaintextSize)
    }

    private init(pusher: SecretStream.Pusher, plaintextSize: UInt64) throws(ProtocolError) {
        guard plaintextSize <= ContentLimits.maxAttachmentSize else { throw .limitExceeded(what: "attachment size") }
        self.pusher = pusher
        self.plaintextSize = plaintextSize
        chunks = AttachmentBlob.chunkCount(plaintextSize: plaintextSize)
        blobLength = AttachmentBlob.blobLength(plaintextSize: plaintextSize)
    }

    /// Whether every chunk has been sealed.
    public var isComplete: Bool { nextChunk == chunks }

    /// The sealed chunks of a whole file held in memory (vectors and tests;
    /// the client streams from disk a chunk at a time instead). Padding is
    /// not included.
    public func sealAll(_ file: [UInt8]) throws(AttachmentError) -> [UInt8] {
        var sealed: [UInt8] = []
        var offset = 0
        repeat {
            let end = min(offset + AttachmentBlob.chunkSize, file.count)
            sealed += try seal(file[offset..<end])
            offset = end
        } while !isComplete
        return sealed
    }

    /// The blob bytes for the next plaintext chunk (preceded by the header
    /// the first time). The chunk must be exactly as long as the format says.
    public func seal<C: ContiguousByteStorage>(_ chunk: C) throws(AttachmentError) -> [UInt8] {
        try AttachmentBlob.collecting { emit in try chunk.withUnsafeBytes { try seal($0, sealed: emit) } }
    }

    /// Seals the next plaintext chunk into a buffer the sealer reuses and
    /// hands `sealed` the blob bytes (preceded by the header the first time),
    /// valid only during the call: no array per chunk. The chunk must be
    /// exactly as long as the format says. Throws an `AttachmentError`, or
    /// what `sealed` threw.
    public func seal(_ chunk: UnsafeRawBufferPointer, sealed: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard nextChunk < chunks else { throw AttachmentError.misuse("a chunk after the final one") }
        let expected = AttachmentBlob.plaintextLength(ofChunk: nextChunk, plaintextSize: plaintextSize)
        guard chunk.count == expected else { throw AttachmentError.misuse("chunk \(nextChunk) has \(chunk.count) bytes, not \(expected)") }
        nextChunk += 1
        let out = output.bytes
        var start = AttachmentBlob.headerLength
        if !headerWritten {
            start = 0
            pusher.header.withUnsafeBytes { out.copyMemory(from: $0) }
            headerWritten = true
        }
        let count = pusher.push(chunk, tag: nextChunk == chunks ? .final : .message,
                                into: UnsafeMutableRawBufferPointer(rebasing: out[AttachmentBlob.headerLength...]))
        let bytes = UnsafeRawBufferPointer(rebasing: out[start..<AttachmentBlob.headerLength + count])
        hasher.update(bytes)
        try sealed(bytes)
    }

    /// Zero bytes to write after the last chunk.
    public var paddingLength: UInt64 { blobLength - AttachmentBlob.sealedLength(plaintextSize: plaintextSize) }

    /// SHA-256 of the whole blob, padding included; only once every chunk is sealed.
    public func digest() throws(AttachmentError) -> [UInt8] {
        guard isComplete else { throw .misuse("digest before the final chunk") }
        let zeros = [UInt8](repeating: 0, count: min(Int(paddingLength), AttachmentBlob.chunkSize))
        var remaining = paddingLength
        while remaining > 0 {
            let step = Int(min(remaining, UInt64(zeros.count)))
            zeros.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<step])) }
            remaining -= UInt64(step)
        }
        return hasher.finalize()
    }
}
