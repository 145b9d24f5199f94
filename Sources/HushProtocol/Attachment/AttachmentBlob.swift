/// The layout of an encrypted attachment blob (docs/PROTOCOL.md §10.3):
///
///     blob = header (24) || chunk 0 || … || chunk n−1 || zero padding
///
/// Each chunk is libsodium secretstream (XChaCha20-Poly1305) over the next
/// `chunkSize` plaintext bytes (the last chunk may be shorter, or empty for
/// an empty file), tagged FINAL on the last chunk and MESSAGE on the others,
/// with no associated data. The zeros pad the blob to a Padmé bucket so the
/// relay learns only the bucket, not the file's size; the pointer's digest
/// (SHA-256 of the whole blob) covers them.
public enum AttachmentBlob {
    /// Plaintext bytes per chunk. Fixed by the format: a receiver computes
    /// every chunk boundary from the plaintext size in the pointer.
    public static let chunkSize = 65_536
    /// Bytes each chunk adds (secretstream's encrypted tag and MAC).
    public static let chunkOverhead = 17
    public static let headerLength = 24
    /// The smallest blob: small files all look the same size.
    public static let minimumBlobLength: UInt64 = 4_096

    /// Chunks for `size` plaintext bytes: at least one (an empty file is one empty final chunk).
    public static func chunkCount(plaintextSize size: UInt64) -> UInt64 {
        size == 0 ? 1 : (size + UInt64(chunkSize) - 1) / UInt64(chunkSize)
    }

    /// Plaintext bytes in chunk `index`.
    public static func plaintextLength(ofChunk index: UInt64, plaintextSize size: UInt64) -> Int {
        let start = index * UInt64(chunkSize)
        return Int(min(UInt64(chunkSize), size - min(size, start)))
    }

    /// Header and chunks, before padding.
    public static func sealedLength(plaintextSize size: UInt64) -> UInt64 {
        UInt64(headerLength) + size + chunkCount(plaintextSize: size) * UInt64(chunkOverhead)
    }

    /// The blob's length: Padmé of the sealed length, at least `minimumBlobLength`.
    public static func blobLength(plaintextSize size: UInt64) -> UInt64 {
        let sealed = max(sealedLength(plaintextSize: size), minimumBlobLength)
        return UInt64(Padding.padme(Int(sealed)))
    }
}

extension AttachmentBlob {
    /// The bytes an in-place call hands its closure (`emit`), gathered into
    /// one array: the array forms of sealing and opening. Appending throws
    /// nothing, so the only errors are the call's own `AttachmentError`s.
    static func collecting(_ body: (_ emit: (UnsafeRawBufferPointer) -> Void) throws -> Void) throws(AttachmentError) -> [UInt8] {
        var out: [UInt8] = []
        do {
            try body { out.append(contentsOf: $0) }
        } catch let error as AttachmentError {
            throw error
        } catch {
            preconditionFailure("only the sealer's or opener's own errors are possible here, not \(error)")
        }
        return out
    }
}

/// One chunk's worth of working memory for the sealer and the opener, reused
/// for every chunk of a blob and zeroed when released (it held plaintext).
final class ChunkBuffer {
    let bytes: UnsafeMutableRawBufferPointer

    init(count: Int) {
        bytes = .allocate(byteCount: count, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        bytes.deallocate()
    }
}
