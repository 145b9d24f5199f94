import HushMessenger
import HushStore

/// A file sent or received with a message. Its bytes stay encrypted on disk
/// until `HushAccount.fetch(_:to:progress:)` exports them.
public struct Attachment: Sendable, Equatable, Identifiable {
    /// Where the transfer stands. Sent from this device: uploading →
    /// uploaded (the sender's own copy stays: `isStoredHere`). Received, or
    /// sent from another device of the account (`direction` is then
    /// `outgoing`, and this device downloads its copy): available (only the
    /// pointer is here) → downloading → ready (verified, stored encrypted).
    /// `failed` says why in `lastError`.
    public enum State: String, Sendable {
        /// Outgoing: the encrypted file waits on disk to be uploaded.
        case uploading
        /// Outgoing: uploaded, and the message carrying its key sealed and queued.
        case uploaded
        /// To download: only the pointer is here; `fetch` downloads the file.
        case available
        /// To download: a download started (and resumes where it stopped).
        case downloading
        /// Downloaded and verified, kept encrypted until exported.
        case ready
        /// The transfer failed for good; `lastError` says why.
        case failed
    }

    /// The attachment's id.
    public let id: AttachmentID
    /// The message that carries the file.
    public let message: MessageID
    /// The conversation the message is in.
    public let conversation: ConversationID
    /// Whether the file was sent or received.
    public let direction: Message.Direction
    /// Where the transfer stands.
    public let state: State
    /// The name the sender gave the file (never used as a path as it is).
    public let fileName: String
    /// The media type the sender declared (`application/octet-stream` when unknown).
    public let mediaType: String
    /// The file's size in bytes.
    public let size: Int64
    /// Bytes moved by the current or last transfer, of `transferSize`.
    public let transferred: Int64
    /// The size of what travels: the encrypted file with its chunks'
    /// overhead and padding (what `transferred` counts towards).
    public let transferSize: Int64
    /// When the file was sent or its pointer received, in milliseconds since 1970.
    public let createdAt: Int64
    /// Why the last transfer failed, if it did.
    public let lastError: String?
    /// Whether this device holds the whole encrypted file: a received file
    /// once downloaded, and a sent file from its sending on (the sender keeps
    /// its own copy, in backups and exports too). `HushAccount.fetch` then
    /// decrypts it from the data directory instead of downloading it.
    /// Files sent before HushKit 0.5.0 were not kept.
    public let isStoredHere: Bool

    init(_ stored: StoredAttachment, storedHere: Bool) {
        id = AttachmentID(rawValue: stored.id)
        message = MessageID(rawValue: stored.messageId)
        conversation = ConversationID(rawValue: stored.conversationId)
        // The message's: a file another device of the account sent is ours, though this one downloads it.
        direction = stored.sentByUs ? .outgoing : .incoming
        state = State(rawValue: stored.state.rawValue) ?? .failed
        fileName = stored.fileName
        mediaType = stored.mediaType
        size = stored.size
        transferred = stored.transferred
        transferSize = stored.blobLength
        createdAt = stored.createdAt
        lastError = stored.lastError
        isStoredHere = storedHere
    }

    init(_ stored: StoredAttachment, on messenger: Messenger) {
        self.init(stored, storedHere: messenger.holdsFile(attachmentID: stored.id))
    }
}

/// How far one file transfer has come.
public struct TransferProgress: Sendable, Equatable {
    /// What is being done to the file.
    public enum Phase: String, Sendable {
        /// The file is read and encrypted into the blob to upload.
        case encrypting
        /// The encrypted blob goes to the relay.
        case uploading
        /// The encrypted blob comes from the relay.
        case downloading
        /// The verified blob is decrypted to its destination.
        case exporting
    }

    /// The attachment; nil while a file being sent is still being encrypted
    /// (it is stored once sealed).
    public let attachment: AttachmentID?
    /// What is being done.
    public let phase: Phase
    /// Bytes done so far, of `total`.
    public let done: Int64
    /// Bytes to move in this phase.
    public let total: Int64

    init(_ progress: AttachmentProgress) {
        attachment = progress.attachmentId == 0 ? nil : AttachmentID(rawValue: progress.attachmentId)
        phase = Phase(rawValue: progress.phase.rawValue) ?? .uploading
        done = progress.done
        total = progress.total
    }
}
