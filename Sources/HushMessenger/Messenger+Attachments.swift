import HushProtocol
import HushStore

/// Files: sending one, listing them, fetching one (docs/PROTOCOL.md §10.3).
extension Messenger {
    /// Seals the file at `path` for `name` (a fresh key, streamed chunk by
    /// chunk into an encrypted blob under the data directory, uploaded from
    /// there as it is written), stores its message as pending, then flushes
    /// the outbox: the pointer is sealed and posted (and an upload cut off
    /// resumed first). Returns the message as stored after that
    /// attempt, and its attachment. `progress` hears this file alone, until
    /// this call returns.
    public func sendFile(at path: String, to name: String,
                         progress: (@Sendable (AttachmentProgress) -> Void)? = nil) async throws -> (message: StoredMessage, attachment: StoredAttachment) {
        try registration.requireSealable()
        try sealer.deviceFanOut.own.requireThisDeviceActive()
        let (messageId, attachmentId) = try await sendingFiles.prepare(file: path, to: name, progress: progress)
        let listening = progress.map { attachmentProgress.listen(to: attachmentId, $0) }
        defer { attachmentProgress.stop(listening) }
        await outgoing.flush()
        guard let message = try store.messages.message(id: messageId), let attachment = try store.attachments.attachment(messageId: messageId) else {
            throw MessengerError.unknownMessage("\(messageId)")
        }
        return (message, attachment)
    }

    /// Attachments sent and received, oldest first: all, or those of the conversation with `contact`.
    public func attachmentList(contact: String? = nil) throws -> [(attachment: StoredAttachment, contact: String)] {
        downloads.interruptAbandonedDownloads()
        let all = try store.attachments.list().map { stored in
            // A download's progress is the bytes on disk (its process may be running now, or
            // have been interrupted: the next fetch resumes after them).
            let partial = stored.direction == .incoming && (stored.state == .downloading || stored.state == .available)
            let attachment = partial ? stored.with(transferred: attachmentFiles?.partSize(stored.id) ?? 0) : stored
            return (attachment: attachment, contact: try contactName(conversationId: attachment.conversationId) ?? "?")
        }
        guard let contact else { return all }
        guard try store.contacts.contact(named: contact) != nil else { throw MessengerError.unknownContact(contact) }
        return all.filter { $0.contact == contact }
    }

    /// Downloads attachment `id` if needed (verified, kept encrypted under the
    /// data directory) and, with `destination`, decrypts it there; the file
    /// appears under that name only once every chunk and the digest checked.
    /// `progress` hears this attachment alone, and nothing once this call
    /// has returned or thrown.
    public func fetchAttachment(id: Int64, to destination: String?,
                                progress: (@Sendable (AttachmentProgress) -> Void)? = nil) async throws -> StoredAttachment {
        let listening = progress.map { attachmentProgress.listen(to: id, $0) }
        defer { attachmentProgress.stop(listening) }
        return try await downloads.fetch(id: id, to: destination)
    }

    /// Turns automatic download on for received files up to `maxBytes` (nil: off).
    public func setAutoDownload(maxBytes: Int64?) throws {
        try store.write { store in try store.settings.set(SettingsRepository.Name.autoDownloadMaxBytes, to: maxBytes.map(String.init)) }
    }

    /// The automatic download limit, nil when off.
    public func autoDownloadLimit() -> Int64? { downloads.autoDownloadMaxBytes }
}
