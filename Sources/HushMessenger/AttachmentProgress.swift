/// How far one attachment transfer has come, for progress bars and `--json` events.
public struct AttachmentProgress: Sendable, Equatable {
    public enum Phase: String, Sendable {
        case encrypting, uploading, downloading, exporting
    }

    /// The attachment's id (0 while encrypting: it is stored once sealed).
    public let attachmentId: Int64
    public let phase: Phase
    /// Blob bytes moved so far (plaintext bytes while encrypting and exporting).
    public let done: Int64
    public let total: Int64

    public init(attachmentId: Int64, phase: Phase, done: Int64, total: Int64) {
        self.attachmentId = attachmentId
        self.phase = phase
        self.done = done
        self.total = total
    }
}
