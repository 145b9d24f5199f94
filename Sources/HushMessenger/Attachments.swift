import Glibc
import HushCrypto
import HushProtocol
import HushRelayAPI
import HushStore

/// Files sent and received (docs/PROTOCOL.md §10.3). Sending: the file is
/// sealed into a blob under the data directory and its message stored as
/// pending with no envelope yet; each outbox flush uploads waiting blobs and,
/// once the relay holds one, seals the pointer as that message's content and
/// queues it, so the message stays pending until the upload completes and an
/// upload the relay could not take is retried like a deposit. Receiving: the
/// pointer is stored; nothing downloads until `fetch`.
final class Attachments {
    private let dependencies: MessengerDependencies
    private let relay: RelaySession
    private let sealer: Sealer
    let files: AttachmentFiles?
    /// Where the current public call wants progress reported.
    var progress: (@Sendable (AttachmentProgress) -> Void)?
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, relay: RelaySession, sealer: Sealer, directory: String?) {
        self.dependencies = dependencies
        self.relay = relay
        self.sealer = sealer
        files = directory.map(AttachmentFiles.init(directory:))
    }

    private func requireFiles() throws -> AttachmentFiles {
        guard let files else { throw MessengerError.attachmentUnavailable("this client keeps no attachment files (no data directory)") }
        return files
    }

    // MARK: Sending

    /// Seals the file at `path` for `name` and stores its message as pending;
    /// returns the message id. The upload happens at the next flush.
    func prepare(file path: String, to name: String) throws -> Int64 {
        let files = try requireFiles()
        // A contact or a group (`hush send team --file …`), checked before the file is sealed.
        let conversation = try sealer.conversationForSending(to: name)
        let fileName = String(path.split(separator: "/").last ?? "")
        guard fileName.utf8.count <= ContentLimits.maxFileNameLength else {
            throw MessengerError.attachmentUnavailable("the file name is longer than \(ContentLimits.maxFileNameLength) bytes: rename the file")
        }
        let key = SecureBytes(randomCount: SecretStream.keyLength, using: dependencies.random)
        let sealed: (path: String, size: Int64, digest: [UInt8])
        let report = progress
        do {
            // Attachment id 0: the row is written once the file is sealed.
            sealed = try files.seal(path, key: key, using: dependencies.random) { done, total in
                report?(AttachmentProgress(attachmentId: 0, phase: .encrypting, done: done, total: total))
            }
        } catch let error as AttachmentFileError {
            throw MessengerError.attachmentUnavailable("cannot send the file: \(error)")
        } catch let ProtocolError.limitExceeded(what) {
            throw MessengerError.attachmentUnavailable("cannot send the file: \(what) is over the 4 GiB limit")
        }
        let now = dependencies.clock.now()
        do {
            return try store.write { store in
                let message = NewMessage(conversationId: conversation, clientMessageId: MessageID.random(using: dependencies.random).description,
                                         direction: .outgoing, sender: dependencies.identity.address.description,
                                         body: Self.summary(fileName: fileName, size: sealed.size), contentType: "attachment",
                                         status: .pending, createdAt: now)
                guard case let .inserted(messageId) = try store.messages.insert(message) else {
                    throw StoreError.invalidArgument("client message id already used")
                }
                let id = try store.attachments.insert(
                    NewAttachment(messageId: messageId, direction: .outgoing, state: .uploading, fileName: fileName,
                                  mediaType: MediaType.guess(fileName: fileName), size: sealed.size, key: key, digest: sealed.digest,
                                  blobId: nil), at: now)
                files.remove(id)  // a reused row id's leftovers (see recordIncoming)
                try files.adopt(sealed.path, as: id)
                return messageId
            }
        } catch {
            // Our own sealing file (a whole encrypted copy) is ours to remove:
            // the sweep leaves the files of live processes alone.
            unlink(sealed.path)
            sweep()
            throw error
        }
    }

    /// How history shows an attachment message.
    static func summary(fileName: String, size: Int64) -> String {
        "[attachment \(fileName.isEmpty ? "unnamed" : fileName), \(size) bytes]"
    }

    /// Uploads every outgoing blob waiting for it and queues the pointers of
    /// those that landed. A relay that cannot be reached leaves the rest
    /// waiting for the next flush; one that refuses (quota, size) fails the
    /// attachment and its message, with the relay's reason.
    func uploadPending(isolation: isolated (any Actor)? = #isolation) async {
        guard let files, let waiting = try? store.attachments.dueUploads(at: dependencies.clock.now()) else { return }
        for attachment in waiting {
            let id = attachment.id, total = Int64(AttachmentBlob.blobLength(plaintextSize: UInt64(attachment.size)))
            // Claim the row first: another flush (re-entered at an await here,
            // or another process) that holds it, or finished it, is left alone.
            let now = dependencies.clock.now()
            let claimed = try? store.write { store in
                try store.attachments.claimUpload(id: id, holder: getpid(), until: now + Self.uploadLeaseMillis, now: now,
                                                  isAlive: Self.isAlive)
            }
            guard claimed == true else {
                continue
            }
            defer { try? store.write { try $0.attachments.releaseTransfer(id: id) } }
            guard files.hasBlob(id) else {
                fail(attachment, "the encrypted copy of the file is gone from the data directory: send the file again")
                continue
            }
            do {
                let blobId = try await upload(attachment, file: files.blobPath(id), length: total)
                try store.write { store in
                    try store.attachments.setUploaded(blobId: blobId, id: id, at: dependencies.clock.now())
                    try store.attachments.setTransferred(total, id: id, at: dependencies.clock.now())
                    guard let message = try store.messages.message(id: attachment.messageId),
                          let uploaded = try store.attachments.attachment(id: id), let pointer = try uploaded.pointer() else {
                        throw MessengerError.unknownAttachment(id)
                    }
                    try sealer.seal(.attachment(pointer), forStored: message)
                }
                // The relay holds it now; the sender keeps no copy of its own.
                files.remove(id)
            } catch let failure as DeliveryFailure {
                // Rate limiting is a "not now", like an unreachable relay:
                // the file waits for the next flush, not a final failure.
                if case let .rateLimited(retryAfter) = failure {
                    postpone(id, failure, atLeast: retryAfter ?? 0)
                } else if failure.isRefusal {
                    fail(attachment, "the relay refused the file: \(Self.reason(failure))")
                } else {
                    postpone(id, failure, atLeast: 0)
                }
            } catch {
                fail(attachment, "the file could not be sent: \(error)")
            }
        }
    }

    /// How long a claim on an upload holds without news (renewed after each
    /// part): a process killed mid-upload leaves it to others after this.
    static let uploadLeaseMillis: Milliseconds = 10 * 60 * 1000

    /// Bytes per upload request: each one that lands is recorded.
    static let uploadSegmentBytes: Int64 = 8 << 20

    /// One resumable upload per attachment, its id kept: a sender cut off or
    /// killed continues after the bytes the relay holds. Returns the blob id.
    private func upload(isolation: isolated (any Actor)? = #isolation, _ attachment: StoredAttachment, file path: String,
                        length: Int64) async throws -> String {
        let id = attachment.id, report = progress, transport = dependencies.transport
        let uploadId: String
        if let kept = attachment.uploadId {
            uploadId = kept
        } else {
            uploadId = try await relay.withReauthentication { () async throws(DeliveryFailure) in
                try await transport.startBlobUpload(length: length)
            }
            try store.write { try $0.attachments.setUploadId(uploadId, id: id, at: dependencies.clock.now()) }
        }
        do {
            // In parts, recording how far the relay got after each, so that
            // `hush attachments` (in another process) shows the progress.
            while true {
                let step = try await relay.withReauthentication { () async throws(DeliveryFailure) in
                    try await transport.continueBlobUpload(id: uploadId, file: path, length: length, segmentBytes: Self.uploadSegmentBytes) { sent in
                        report?(AttachmentProgress(attachmentId: id, phase: .uploading, done: sent, total: length))
                    }
                }
                if let blobID = step.blobID { return blobID }
                try? store.write { store in
                    let now = dependencies.clock.now()
                    try store.attachments.setTransferred(step.received, id: id, at: now)
                    try store.attachments.renewUploadLease(id: id, until: now + Self.uploadLeaseMillis)
                }
            }
        } catch {
            if case .rejected(404, _) = error {
                // The relay forgot the upload (abandoned for a day, or another relay): start afresh next time.
                try store.write { try $0.attachments.setUploadId(nil, id: id, at: dependencies.clock.now()) }
                throw DeliveryFailure.unavailable(reason: "the relay no longer had the upload in progress; it starts again")
            }
            throw error
        }
    }

    private static func reason(_ failure: DeliveryFailure) -> String {
        if case let .rejected(413, message) = failure { return message }
        return failure.description
    }

    /// Marks an attachment failed, with its message.
    /// A "not now" from the relay (down, slow, rate limiting): the upload
    /// waits its own backoff (never given up: the file is here and the user
    /// sent it), so later flushes post other messages without trying it again
    /// at once. What the relay holds of it is kept for the next attempt.
    private func postpone(_ id: Int64, _ failure: DeliveryFailure, atLeast minimum: Milliseconds) {
        let random = dependencies.random
        _ = try? store.write { store in
            try store.attachments.deferUpload(id: id, error: failure.description, at: dependencies.clock.now()) { failures in
                // At least a second: full jitter may draw 0, which would try it again at the very next flush.
                max(minimum, 1_000, BackoffPolicy.upload.delay(forAttempt: failures, using: random))
            }
        }
    }

    private func fail(_ attachment: StoredAttachment, _ reason: String) {
        try? store.write { store in
            try store.attachments.setState(.failed, id: attachment.id, error: reason, at: dependencies.clock.now())
            if attachment.direction == .outgoing, attachment.blobId == nil {
                try store.messages.moveOutgoing(messageId: attachment.messageId, to: .failed)
            }
        }
    }

    /// `hush retry`: failed uploads whose blob is still here wait for the next flush again.
    func makeDueNow() throws {
        guard let files else { return }
        try store.attachments.makeUploadsDueNow()
        for attachment in try store.attachments.list(state: .failed)
        where attachment.direction == .outgoing && attachment.blobId == nil && files.hasBlob(attachment.id) {
            try store.attachments.setState(.uploading, id: attachment.id, at: dependencies.clock.now())
            try store.messages.moveOutgoing(messageId: attachment.messageId, to: .pending)
        }
    }

    // MARK: Receiving

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
        let files = try requireFiles()
        guard let attachment = try store.attachments.attachment(id: id) else { throw MessengerError.unknownAttachment(id) }
        // Refused before anything downloads when the destination exists.
        let export: ExportFile?
        do { export = try destination.map { try ExportFile(destination: $0, using: dependencies.random) } } catch {
            throw MessengerError.attachmentRejected("cannot save the attachment: \(error)")
        }
        let report = progress
        if !files.hasBlob(id) {
            do { try await download(attachment, files: files, exportingTo: export) } catch {
                export?.abandon()
                throw error
            }
            if let export {
                do { try export.commit() } catch { throw MessengerError.attachmentRejected("cannot save the attachment: \(error)") }
            }
        } else if let export {
            report?(AttachmentProgress(attachmentId: id, phase: .exporting, done: 0, total: attachment.size))
            do {
                try files.export(id, key: attachment.key, size: attachment.size, digest: attachment.digest, to: export)
            } catch let error as AttachmentError {
                // The stored copy no longer verifies: drop it, so the next fetch downloads again.
                files.remove(id)
                try? store.write { try $0.attachments.setState(.available, id: id, error: error.description, at: dependencies.clock.now()) }
                throw MessengerError.attachmentRejected("the stored copy of the attachment is damaged (\(error)); `hush fetch \(id)` downloads it again")
            } catch let error as AttachmentFileError {
                throw MessengerError.attachmentRejected("cannot save the attachment: \(error)")
            } catch let failure as ExportFailure {
                throw MessengerError.attachmentRejected(failure.description)
            }
        }
        if export != nil {
            report?(AttachmentProgress(attachmentId: id, phase: .exporting, done: attachment.size, total: attachment.size))
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
            throw MessengerError.attachmentUnavailable("attachment \(id) is not uploaded yet: `hush sync` or `hush retry` sends it")
        }
        let restState: AttachmentState = attachment.direction == .incoming ? .available : attachment.state
        let report = progress
        let sink: VerifyingBlobSink
        do {
            sink = try VerifyingBlobSink(files: files, id: id, key: attachment.key, size: attachment.size, digest: attachment.digest,
                                         export: export) { done in
                report?(AttachmentProgress(attachmentId: id, phase: .downloading, done: done,
                                           total: Int64(AttachmentBlob.blobLength(plaintextSize: UInt64(attachment.size)))))
            }
        } catch let failure as ExportFailure {
            throw MessengerError.attachmentRejected(failure.description)
        } catch {
            throw MessengerError.attachmentRejected("cannot store the attachment: \(error)")
        }
        // A received file is claimed for this process (a sent one fetched back is not tracked).
        let claims = attachment.direction == .incoming
        if claims {
            let claimed = try store.write { store in
                try store.attachments.claimDownload(id: id, holder: getpid(), at: dependencies.clock.now(), isAlive: Self.isAlive)
            }
            guard claimed else {
                throw MessengerError.attachmentUnavailable("attachment \(id) is being downloaded by another hush process: wait for it to finish, or stop it and fetch again (it resumes)")
            }
        }
        defer { if claims { try? store.write { try $0.attachments.releaseTransfer(id: id) } } }
        do {
            if sink.resumeOffset > 0 {
                report?(AttachmentProgress(attachmentId: id, phase: .downloading, done: sink.resumeOffset, total: sink.blobLength))
            }
            if sink.resumeOffset < sink.blobLength {
                try await dependencies.transport.downloadBlob(id: blobId, from: sink.resumeOffset, maxBytes: sink.blobLength, into: sink)
            }
            try sink.finish()
        } catch {
            let now = dependencies.clock.now()
            switch error {
            case let failure as DeliveryFailure:
                // What arrived is checked and kept: the next fetch resumes after it.
                try? store.write { try $0.attachments.setState(restState, id: id, error: failure.description, at: now) }
                if case .rejected(404, _) = failure {
                    throw MessengerError.attachmentUnavailable("the relay no longer has attachment \(id) (blobs expire): ask the sender to send it again")
                }
                throw MessengerError.relay(failure)
            case let failure as ExportFailure:
                // The download is fine: what it checked stays for the next fetch.
                try? store.write { try $0.attachments.setState(restState, id: id, error: failure.description, at: now) }
                throw MessengerError.attachmentRejected(failure.description)
            case let error as AttachmentError:
                sink.abandon()
                try? store.write { try $0.attachments.setState(.failed, id: id, error: error.description, at: now) }
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
            if attachment.direction == .incoming { try store.attachments.setState(.ready, id: id, at: now) }
        }
    }

    /// Whether process `pid` still runs (a transfer's holder).
    static func isAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno != ESRCH }

    /// Downloads whose process died (`hush fetch` killed mid-way) show as
    /// available again, with what they kept for the next fetch to resume,
    /// instead of "downloading" for ever; automatic download retries them.
    func interruptAbandonedDownloads() {
        _ = try? store.write { store in
            try store.attachments.interruptAbandonedDownloads(
                reason: "the download was interrupted; `hush fetch` resumes it after the bytes already checked",
                at: dependencies.clock.now(), isAlive: Self.isAlive)
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
            if (try? await download(attachment, files: files)) != nil { fetched += 1 }
        }
        return fetched
    }

    /// Removes blob files whose attachment is gone (deleted with its
    /// conversation or contact, or never committed), and sealing files whose
    /// process is gone. Under the write lock: another process adopts a sealed
    /// file inside its write transaction, before its row is visible here, and
    /// must not lose the file to this sweep. When the rows cannot be read
    /// (locked past the busy timeout, a damaged database), nothing is removed:
    /// an empty set of ids would have meant every file.
    func sweep() {
        guard let files else { return }
        try? store.write { store in
            files.sweep(keeping: try store.attachments.allIds(), isAlive: Self.isAlive)
        }
    }
}

extension StoredAttachment {
    /// The blob's length (what `transferred` counts towards): the file with its chunks' overhead and padding.
    public var blobLength: Int64 { Int64(AttachmentBlob.blobLength(plaintextSize: UInt64(max(size, 0)))) }

    /// The pointer this attachment travels as, once the relay holds its blob.
    func pointer() throws -> AttachmentPointer? {
        guard let blobId else { return nil }
        return try AttachmentPointer(key: key, digest: digest, size: UInt64(size), blobID: Array(blobId.utf8), fileName: fileName,
                                     mediaType: mediaType)
    }
}
