#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto
import HushProtocol
import HushRelayAPI
import HushStore

/// Files received (docs/PROTOCOL.md §10.3): the pointer is stored with its
/// message, and nothing downloads until the user fetches it (or opted in to
/// automatic download up to a size). A download is checked chunk by chunk,
/// kept encrypted under the data directory, and resumes after what it kept.
final class AttachmentDownloads {
    private let dependencies: MessengerDependencies
    private let files: AttachmentFiles?
    private let progress: AttachmentProgressReporter
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, files: AttachmentFiles?, progress: AttachmentProgressReporter) {
        self.dependencies = dependencies
        self.files = files
        self.progress = progress
    }

    /// Stores an incoming pointer for the message `messageId` (inside the caller's transaction).
    func recordIncoming(_ pointer: AttachmentPointer, messageId: Int64) throws {
        // A blob id no relay issues (PROTOCOL §10.3) can never be fetched, and
        // must never become part of a request path: the message is kept, its
        // file marked failed with the reason.
        let text = String(validating: pointer.blobID, as: UTF8.self)
        let blobId = text.flatMap { BlobIdentifier.isWellFormed($0) ? $0 : nil }
        let id = try store.attachments.insert(
            NewAttachment(messageId: messageId, direction: .incoming, state: blobId == nil ? .failed : .available, fileName: pointer.fileName,
                          mediaType: pointer.mediaType, size: Int64(pointer.size), key: pointer.key, digest: pointer.digest,
                          blobId: blobId), at: dependencies.clock.now())
        // Row ids can be reused after the highest row was deleted, before a sweep removed its files:
        // a new attachment never starts from another's partial or finished download.
        files?.remove(id)
        if blobId == nil {
            try store.attachments.setState(.failed, id: id, error: "the sender's pointer names a blob id no relay issues (not 64 lower-case hex "
                                           + "digits), so the file cannot be fetched: ask them to send it again", at: dependencies.clock.now())
        }
    }

    /// Downloads attachment `id` unless it is here already (checking every
    /// chunk and the digest, keeping it encrypted under the data directory),
    /// with `destination` decrypting it there in the same pass; a copy
    /// already here is decrypted there from the data directory.
    func fetch(isolation: isolated (any Actor)? = #isolation, id: Int64, to destination: String?) async throws -> StoredAttachment {
        let files = try AttachmentFiles.required(files)
        guard let attachment = try store.attachments.attachment(id: id) else { throw MessengerError.unknownAttachment(id) }
        // Refused before anything downloads when the destination exists.
        let export: ExportFile?
        do { export = try destination.map { try ExportFile(destination: $0, using: dependencies.random) } } catch {
            throw MessengerError.attachmentRejected("cannot save the attachment: \(error)")
        }
        if !files.hasBlob(id) {
            do { try await download(attachment, files: files, exportingTo: export) } catch {
                export?.abandon()
                throw error
            }
            if let export {
                do { try export.commit() } catch { throw MessengerError.attachmentRejected("cannot save the attachment: \(error)") }
            }
        } else if let export {
            progress.report(AttachmentProgress(attachmentId: id, phase: .exporting, done: 0, total: attachment.size))
            do {
                try files.export(id, key: attachment.key, size: attachment.size, digest: attachment.digest, to: export)
            } catch let error as AttachmentError {
                // The stored copy no longer verifies: drop it, so the next fetch downloads
                // again (a sent file's from the relay too, while it keeps the blob).
                files.remove(id)
                let state: AttachmentState = attachment.direction == .incoming ? .available : attachment.state
                try? store.write { try $0.attachments.setState(state, id: id, error: error.description, at: dependencies.clock.now()) }
                throw MessengerError.storedAttachmentDamaged(id: id, reason: error.description)
            } catch let error as AttachmentFileError {
                throw MessengerError.attachmentRejected("cannot save the attachment: \(error)")
            } catch let failure as ExportFailure {
                throw MessengerError.attachmentRejected(failure.description)
            }
        }
        if export != nil {
            progress.report(AttachmentProgress(attachmentId: id, phase: .exporting, done: attachment.size, total: attachment.size))
        }
        guard let stored = try store.attachments.attachment(id: id) else { throw MessengerError.unknownAttachment(id) }
        return stored
    }

    private func download(isolation: isolated (any Actor)? = #isolation, _ attachment: StoredAttachment,
                          files: AttachmentFiles, exportingTo export: ExportFile? = nil) async throws {
        let id = attachment.id
        guard let blobId = attachment.blobId else {
            // Received without a usable blob id (`recordIncoming` said why).
            if attachment.direction == .incoming { throw MessengerError.attachmentRejected(attachment.lastError ?? "the pointer names no blob") }
            throw MessengerError.attachmentNotUploaded(id: id)
        }
        let restState: AttachmentState = attachment.direction == .incoming ? .available : attachment.state
        // A received file is claimed before anything touches its files (a sent one fetched
        // back is not tracked): the sink below may start its partial file afresh, which
        // must never happen under a download already running, in this process (an automatic
        // download beside a fetch) or another.
        let claims = attachment.direction == .incoming
        if claims {
            let claimed = try store.write { store in
                try store.attachments.claimDownload(id: id, holder: getpid(), at: dependencies.clock.now(), isAlive: TransferHolder.isAlive)
            }
            guard claimed else {
                throw MessengerError.attachmentUnavailable("attachment \(id) is being downloaded already (by this or another hush process): wait for it to finish, or stop it and fetch again (it resumes)")
            }
        }
        defer { if claims { try? store.write { try $0.attachments.releaseTransfer(id: id) } } }
        let progress = self.progress
        let sink: VerifyingBlobSink
        do {
            sink = try VerifyingBlobSink(files: files, id: id, key: attachment.key, size: attachment.size, digest: attachment.digest,
                                         export: export) { done in
                progress.report(AttachmentProgress(attachmentId: id, phase: .downloading, done: done,
                                                   total: Int64(AttachmentBlob.blobLength(plaintextSize: UInt64(attachment.size)))))
            }
        } catch {
            // Nothing downloaded: the claimed file is back where it was.
            if claims { try? store.write { try $0.attachments.setState(restState, id: id, error: attachment.lastError, at: dependencies.clock.now()) } }
            if let failure = error as? ExportFailure { throw MessengerError.attachmentRejected(failure.description) }
            throw MessengerError.attachmentRejected("cannot store the attachment: \(error)")
        }
        do {
            if sink.resumeOffset > 0 {
                progress.report(AttachmentProgress(attachmentId: id, phase: .downloading, done: sink.resumeOffset, total: sink.blobLength))
            }
            if sink.resumeOffset < sink.blobLength {
                try await dependencies.requireBlobs().downloadBlob(id: blobId, from: sink.resumeOffset, maxBytes: sink.blobLength, into: sink)
            }
            try sink.finish()
        } catch {
            let now = dependencies.clock.now()
            switch error {
            case let failure as DeliveryFailure:
                // What arrived is checked and kept: the next fetch resumes after it.
                sink.keep()
                try? store.write { try $0.attachments.setState(restState, id: id, error: failure.description, at: now) }
                if case .rejected(404, _) = failure {
                    throw MessengerError.attachmentUnavailable("the relay no longer has attachment \(id) (blobs expire): ask the sender to send it again")
                }
                throw MessengerError.relay(failure)
            case let failure as ExportFailure:
                // The download is fine: what it checked stays for the next fetch.
                sink.keep()
                try? store.write { try $0.attachments.setState(restState, id: id, error: failure.description, at: now) }
                throw MessengerError.attachmentRejected(failure.description)
            case let error as AttachmentError:
                sink.abandon()
                try? store.write { store in
                    try store.attachments.setState(.failed, id: id, error: error.description, at: now)
                    if claims { try dependencies.emit(attachment.changed(to: .failed)) }
                }
                throw MessengerError.attachmentRejected(error.description)
            default:
                sink.abandon()
                try? store.write { try $0.attachments.setState(restState, id: id, error: "\(error)", at: now) }
                throw MessengerError.attachmentRejected("cannot store the attachment: \(error)")
            }
        }
        try store.write { store in
            let now = dependencies.clock.now()
            try store.attachments.setTransferred(sink.blobLength, id: id, at: now)
            if attachment.direction == .incoming {
                try store.attachments.setState(.ready, id: id, at: now)
                try dependencies.emit(attachment.changed(to: .ready))
            }
        }
    }

    /// Downloads whose process died (`hush fetch` killed mid-way) show as
    /// available again, with what they kept for the next fetch to resume,
    /// instead of "downloading" for ever; automatic download retries them.
    func interruptAbandonedDownloads() {
        _ = try? store.write { store in
            try store.attachments.interruptAbandonedDownloads(
                reason: "the download was interrupted; fetching it again resumes after the bytes already checked",
                at: dependencies.clock.now(), isAlive: TransferHolder.isAlive)
        }
    }

    /// The user's opt-in: received files up to this size download at each sync.
    var autoDownloadMaxBytes: Int64? {
        (try? store.settings.value(SettingsRepository.Name.autoDownloadMaxBytes)).flatMap { $0.flatMap { Int64($0) } }
    }

    /// Downloads (and checks; nothing is exported) every received attachment
    /// not yet here whose size is within the opt-in limit. Failures stay on
    /// the attachment (`hush attachments` shows them); the sync goes on.
    @discardableResult
    func autoDownload(isolation: isolated (any Actor)? = #isolation) async -> Int {
        guard let limit = autoDownloadMaxBytes, let files else { return 0 }
        interruptAbandonedDownloads()
        guard let waiting = try? store.attachments.list(state: .available) else { return 0 }
        var fetched = 0
        for attachment in waiting where attachment.direction == .incoming && attachment.size <= limit && !files.hasBlob(attachment.id) {
            // The live view stopping ends the pass; what is left waits for the next one.
            if Task.isCancelled { break }
            if (try? await download(attachment, files: files)) != nil { fetched += 1 }
        }
        return fetched
    }
}

private extension StoredAttachment {
    /// The durable event that this received file's download ended in `state`:
    /// a bot or chat that was not watching learns it from the event log.
    func changed(to state: AttachmentState) -> MessengerEvent {
        .attachmentChanged(attachmentID: id, messageID: messageId, conversationID: conversationId, state: state)
    }
}
