/// Plaintext padding before encryption, so a ciphertext's length says little
/// about its content: Padmé buckets (Nikitin et al., "Reducing Metadata
/// Leakage from Encrypted Files and Communication with PURBs", 2019) above a
/// 256-byte floor, with ISO/IEC 7816-4 marker padding (0x80 then zeros).
///
/// Padmé leaks O(log log L) bits of the length and costs at most 12 % (1088
/// bytes for a 1 KiB message), where fixed blocks either leak more for large
/// messages or cost far more for small ones. The floor makes every receipt,
/// typing indicator and short text the same 256 bytes.
///
///     padded = content || 0x80 || 0x00 × (P − L − 1),  P = Padmé(max(L + 1, 256))
public enum Padding {
    /// The smallest padded length.
    public static let minimumPaddedLength = 256
    /// The largest content a message may carry (attachments travel as blobs).
    public static let maximumContentLength = 65_536
    /// Padmé(65_537) = 67_584: the largest padded length a receiver accepts.
    public static let maximumPaddedLength = paddedLength(forContentLength: maximumContentLength)

    /// Padmé: round `length` up so that only its top ⌊log2 E⌋+1 bits vary, E = ⌊log2 length⌋.
    public static func padme(_ length: Int) -> Int {
        precondition(length >= 2)
        let e = Int.bitWidth - 1 - length.leadingZeroBitCount
        let s = Int.bitWidth - 1 - e.leadingZeroBitCount + 1
        let lastBits = e - s
        let mask = (1 << lastBits) - 1
        return (length + mask) & ~mask
    }

    public static func paddedLength(forContentLength length: Int) -> Int {
        padme(max(length + 1, minimumPaddedLength))
    }

    public static func pad(_ content: [UInt8]) throws(ProtocolError) -> [UInt8] {
        guard content.count <= maximumContentLength else { throw .limitExceeded(what: "message content") }
        var out = content
        let total = paddedLength(forContentLength: content.count)
        out.reserveCapacity(total)
        out.append(0x80)
        out.append(contentsOf: repeatElement(0, count: total - content.count - 1))
        return out
    }

    /// The content length of a padded buffer, or nil when the padding is not
    /// exactly canonical (same rules as `unpad`). Lets the ratchet unpad in place.
    public static func contentLength(ofPadded padded: UnsafeRawBufferPointer) -> Int? {
        guard padded.count >= minimumPaddedLength, padded.count <= maximumPaddedLength else { return nil }
        var end = padded.count - 1
        while end >= 0, padded[end] == 0 { end -= 1 }
        guard end >= 0, padded[end] == 0x80, paddedLength(forContentLength: end) == padded.count else { return nil }
        return end
    }

    /// Strict: the marker must be present, every byte after it zero, and the
    /// total exactly the bucket of the content's length.
    public static func unpad(_ padded: [UInt8]) throws(ProtocolError) -> [UInt8] {
        guard padded.count >= minimumPaddedLength, padded.count <= maximumPaddedLength else { throw .malformed(what: "padding") }
        var end = padded.count - 1
        while end >= 0, padded[end] == 0 { end -= 1 }
        guard end >= 0, padded[end] == 0x80, paddedLength(forContentLength: end) == padded.count else {
            throw .malformed(what: "padding")
        }
        return Array(padded[..<end])
    }
}
