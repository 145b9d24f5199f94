import HushMessenger
import HushStore

/// Files: `hush send --file`, `hush attachments`, `hush fetch`.
extension MessagingClient {
    /// Sends the file at `path` to `contact` (and `caption` as a text after
    /// it). Like `send(text:)`, tells whether the relay has the message yet,
    /// and if not why.
    public func sendFile(at path: String, to contact: String, caption: String?,
                         progress: (@Sendable (AttachmentProgress) -> Void)? = nil)
        async throws -> (message: StoredMessage, attachment: StoredAttachment, reason: String?) {
        let (message, attachment) = try await messenger.sendFile(at: path, to: contact, progress: progress)
        if let caption, !caption.isEmpty { _ = try await messenger.send(text: caption, to: contact) }
        guard message.status == .pending || message.status == .failed else { return (message, attachment, nil) }
        let outboxError = try await messenger.outbox().first(where: { $0.messageId == message.id })?.lastError
        return (message, attachment, attachment.lastError ?? outboxError ?? "no answer")
    }

    /// Attachments with their contact's name: all, or those with `contact`.
    public func attachments(contact: String?) async throws -> [(attachment: StoredAttachment, contact: String)] {
        try await messenger.attachmentList(contact: contact)
    }

    /// Downloads attachment `id` (unless here already) and exports it to `destination`.
    public func fetchAttachment(id: Int64, to destination: String?,
                                progress: (@Sendable (AttachmentProgress) -> Void)? = nil) async throws -> StoredAttachment {
        try await messenger.fetchAttachment(id: id, to: destination, progress: progress)
    }

    /// Received files up to `maxBytes` download at each sync; nil turns it off.
    public func setAutoDownload(maxBytes: Int64?) async throws {
        try await messenger.setAutoDownload(maxBytes: maxBytes)
    }

    public func autoDownloadLimit() async -> Int64? {
        await messenger.autoDownloadLimit()
    }
}
