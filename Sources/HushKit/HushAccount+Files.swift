import HushMessenger
import Synchronization

/// Files: what was sent and received, and fetching one.
extension HushAccount {
    /// The attachment with id `id`.
    public func attachment(_ id: AttachmentID) async throws(HushError) -> Attachment {
        try await guarded {
            guard let stored = try await messenger.attachment(id: id.rawValue) else { throw MessengerError.unknownAttachment(id.rawValue) }
            return Attachment(stored, on: messenger)
        }
    }

    /// The file a message carries, nil for a text.
    public func attachment(of message: MessageID) async throws(HushError) -> Attachment? {
        try await guarded { try await messenger.attachment(messageID: message.rawValue).map { Attachment($0, on: messenger) } }
    }

    /// Downloads a received file (unless it is here already), checks every
    /// chunk and the whole file's digest, and with `destination` decrypts it
    /// to that path: the file appears there only once verified.
    public func fetch(_ id: AttachmentID, to destination: String? = nil,
                      progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws(HushError) -> Attachment {
        try await guarded {
            Attachment(try await messenger.fetchAttachment(id: id.rawValue, to: destination, progress: progressReporter(progress)), on: messenger)
        }
    }

    /// Received files up to `maxBytes` are downloaded at each sync; nil turns that off.
    public func setAutoDownload(maxBytes: Int64?) async throws(HushError) {
        try await guarded { try await messenger.setAutoDownload(maxBytes: maxBytes) }
    }

    /// The size up to which received files download at each sync; nil when off.
    public func autoDownloadLimit() async -> Int64? {
        await messenger.autoDownloadLimit()
    }

    /// Hands each step of a transfer to `callback` and, at most once per
    /// percent and phase, to every event subscriber as `.transferProgress`
    /// (a large file moves in thousands of chunks; subscribers get the steps
    /// a progress bar shows, not a flood that would push other events out).
    func progressReporter(_ callback: (@Sendable (TransferProgress) -> Void)?) -> @Sendable (AttachmentProgress) -> Void {
        let hub = hub, recordHub = recordHub
        let last = Mutex<(phase: AttachmentProgress.Phase?, percent: Int64)>((nil, -1))
        return { step in
            let progress = TransferProgress(step)
            callback?(progress)
            let percent = step.total > 0 ? step.done * 100 / step.total : 100
            let publish = last.withLock { last in
                guard last.phase != step.phase || last.percent != percent else { return false }
                last = (step.phase, percent)
                return true
            }
            if publish {
                hub.publish(.transferProgress(progress))
                recordHub.publish(.live(.transferProgress(progress)))
            }
        }
    }
}
