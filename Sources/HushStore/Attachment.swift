import HushCrypto

/// Where an attachment's transfer stands. Outgoing: `uploading` (the
/// encrypted blob waits under the data directory) → `uploaded` (the pointer
/// message is sealed and queued). Incoming: `available` (only the pointer is
/// here) → `downloading` → `ready` (the verified blob is under the data
/// directory, encrypted, until exported). `failed` says why in `lastError`.
public enum AttachmentState: String, Sendable, CaseIterable {
    case uploading, uploaded, available, downloading, ready, failed
}

/// One attachment as stored.
public struct StoredAttachment: Sendable, CustomStringConvertible {
    public let id: Int64
    public let messageId: Int64
    public let conversationId: Int64
    public let direction: MessageDirection
    public let state: AttachmentState
    public let fileName: String
    public let mediaType: String
    public let size: Int64
    /// The blob's secretstream key. Secret.
    public let key: SecureBytes
    public let digest: [UInt8]
    public let blobId: String?
    /// Blob bytes moved so far by the current or last transfer.
    public let transferred: Int64
    public let lastError: String?
    public let createdAt: Milliseconds
    /// The relay's id of the upload in progress (outgoing, not yet complete).
    public let uploadId: String?
    /// Whether the message carrying it is ours: sent from this device, or
    /// from another device of the account (a transcript, whose file this
    /// device downloads like a received one). `direction` is the transfer's.
    public let sentByUs: Bool

    public var description: String { "StoredAttachment(\(id), \(state), \(size) bytes, key redacted)" }

    /// The same attachment with another progress figure (a download in
    /// progress is measured by the bytes on disk, which the store does not follow).
    public func with(transferred bytes: Int64) -> StoredAttachment {
        StoredAttachment(id: id, messageId: messageId, conversationId: conversationId, direction: direction, state: state,
                         fileName: fileName, mediaType: mediaType, size: size, key: key, digest: digest, blobId: blobId,
                         transferred: bytes, lastError: lastError, createdAt: createdAt, uploadId: uploadId, sentByUs: sentByUs)
    }
}

/// A new attachment row.
public struct NewAttachment: Sendable {
    public var messageId: Int64
    public var direction: MessageDirection
    public var state: AttachmentState
    public var fileName: String
    public var mediaType: String
    public var size: Int64
    public var key: SecureBytes
    public var digest: [UInt8]
    public var blobId: String?

    public init(messageId: Int64, direction: MessageDirection, state: AttachmentState, fileName: String, mediaType: String,
                size: Int64, key: SecureBytes, digest: [UInt8], blobId: String?) {
        self.messageId = messageId
        self.direction = direction
        self.state = state
        self.fileName = fileName
        self.mediaType = mediaType
        self.size = size
        self.key = key
        self.digest = digest
        self.blobId = blobId
    }
}
