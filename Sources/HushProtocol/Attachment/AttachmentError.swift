/// Why an attachment blob was refused. Each says what the user can do; none
/// carries key material or plaintext.
public enum AttachmentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The blob ended before its final chunk (or before its padding ended).
    case truncated
    /// Chunk `index` did not authenticate: altered, reordered, duplicated,
    /// or a final chunk where more should follow (or the reverse).
    case chunkRejected(index: UInt64)
    /// More bytes than the pointer's size allows.
    case tooLong
    /// The padding after the final chunk is not all zeros.
    case badPadding
    /// The blob's SHA-256 is not the pointer's digest.
    case digestMismatch
    /// A plaintext chunk of the wrong length was handed to the sealer (a bug in the caller).
    case misuse(String)

    public var description: String {
        let advice = "the blob was altered or damaged; ask the sender to send the file again"
        switch self {
        case .truncated: return "the attachment is incomplete (it ends before its final chunk): \(advice)"
        case let .chunkRejected(index): return "chunk \(index) of the attachment did not authenticate: \(advice)"
        case .tooLong: return "the attachment is longer than its sender said: \(advice)"
        case .badPadding: return "the attachment's padding is not zeros: \(advice)"
        case .digestMismatch: return "the attachment's digest does not match: \(advice)"
        case let .misuse(what): return "attachment sealer misused: \(what)"
        }
    }
}
