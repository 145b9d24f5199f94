import HushCrypto
import HushProtocol

/// The `attachment-blob` target: a blob as a relay (or anyone on the way)
/// could serve it, opened as `hush fetch` opens it. The input is the
/// attachment key (32 bytes), the plaintext size the pointer claims
/// (UInt32, little-endian; above 1 MiB is skipped, to keep runs fast), a
/// piece size (one byte, times 64, plus 1: downloads arrive in any pieces),
/// then the blob. The pointer's digest is the blob's own SHA-256, so inputs
/// get past the digest to the chunk arithmetic, which must refuse, never trap.
enum AttachmentBlobInput {
    static let maximumPlaintextSize: UInt64 = 1 << 20
    static let headerLength = 32 + 4 + 1

    static func encode(key: [UInt8], plaintextSize: UInt32, pieceSelector: UInt8, blob: [UInt8]) -> [UInt8] {
        key + withUnsafeBytes(of: plaintextSize.littleEndian, Array.init) + [pieceSelector] + blob
    }

    static func open(_ input: [UInt8]) {
        guard input.count >= headerLength else { return }
        let size = (32..<36).reduce(UInt64(0)) { $0 | UInt64(input[$1]) << (8 * UInt64($1 - 32)) }
        guard size <= maximumPlaintextSize else { return }
        let piece = Int(input[36]) * 64 + 1
        let blob = Array(input[headerLength...])
        guard let opener = try? AttachmentOpener(key: SecureBytes(copying: Array(input[0..<32])), plaintextSize: size,
                                                 digest: SHA256.hash(blob)) else { return }
        var offset = 0
        while offset < blob.count {
            let end = min(blob.count, offset + piece)
            guard (try? opener.consume(Array(blob[offset..<end]))) != nil else { return }
            offset = end
        }
        _ = try? opener.finish()
    }
}
