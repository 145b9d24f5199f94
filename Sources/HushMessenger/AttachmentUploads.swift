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
import Synchronization

/// Uploads of the files `AttachmentSending` sealed, as queued work taken at
/// each flush (docs/PROTOCOL.md §10.3): each blob the relay takes gets its
/// pointer sealed (`Sealer`) as its message's content and queued, so the
/// message stays pending until the upload completes; an upload the relay
/// could not take now waits its own backoff, one it refuses fails with its
/// message.
final class AttachmentUploads {
    private let dependencies: MessengerDependencies
    private let relay: RelaySession
    private let sealer: Sealer
    private let files: AttachmentFiles?
    private let progress: AttachmentProgressReporter
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, relay: RelaySession, sealer: Sealer, files: AttachmentFiles?,
         progress: AttachmentProgressReporter) {
        self.dependencies = dependencies
        self.relay = relay
        self.sealer = sealer
        self.files = files
        self.progress = progress
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
                                                  isAlive: TransferHolder.isAlive)
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
                // The copy stays: the sender's own, until the message is deleted.
                try recordUploaded(id: id, messageId: attachment.messageId, blobId: blobId, length: total)
            } catch {
                settle(attachment, failure: error)
            }
        }
    }

    /// The relay holds attachment `id`'s whole blob as `blobId`: its pointer
    /// is sealed as its message's content and queued (in the caller's
    /// transaction, if one is open). The caller removes the encrypted copy.
    func recordUploaded(id: Int64, messageId: Int64, blobId: String, length: Int64) throws {
        try store.write { store in
            try store.attachments.setUploaded(blobId: blobId, id: id, at: dependencies.clock.now())
            try store.attachments.setTransferred(length, id: id, at: dependencies.clock.now())
            guard let message = try store.messages.message(id: messageId),
                  let uploaded = try store.attachments.attachment(id: id), let pointer = try uploaded.pointer() else {
                throw MessengerError.unknownAttachment(id)
            }
            try sealer.seal(.attachment(pointer), forStored: message)
        }
    }

    /// An upload that did not complete: rate limiting and other "not now"s
    /// wait their backoff (what the relay holds is kept), a refusal fails the
    /// attachment and its message.
    private func settle(_ attachment: StoredAttachment, failure error: any Error) {
        let id = attachment.id
        if let failure = error as? DeliveryFailure {
            // Rate limiting is a "not now", like an unreachable relay:
            // the file waits for the next flush, not a final failure.
            if case let .rateLimited(retryAfter) = failure {
                postpone(id, failure, atLeast: retryAfter ?? 0)
            } else if failure.isRefusal {
                fail(attachment, "the relay refused the file: \(Self.reason(failure))")
            } else {
                postpone(id, failure, atLeast: 0)
            }
        } else {
            fail(attachment, "the file could not be sent: \(error)")
        }
    }

    /// An upload that follows the sealing of its file, as it stands: the
    /// upload's id once the relay gave one, and the blob's id once it holds
    /// every byte, or why it stopped. Read from the sealing's side while the
    /// upload goes on.
    final class FollowedUpload: Sendable {
        private struct State {
            var uploadId: String?
            var blobId: String?
            var failure: (any Error)?
        }

        private let state = Mutex(State())

        var uploadId: String? { state.withLock { $0.uploadId } }
        var blobId: String? { state.withLock { $0.blobId } }
        var failure: (any Error)? { state.withLock { $0.failure } }

        fileprivate func started(_ id: String) { state.withLock { $0.uploadId = id } }
        fileprivate func completed(_ id: String) { state.withLock { $0.blobId = id } }
        fileprivate func failed(_ error: any Error) { state.withLock { $0.failure = error } }
    }

    /// Starts the upload of a `length`-byte blob about to be sealed (logging
    /// in first if the session needs it), for `follow`; what failed is
    /// recorded in `followed`, and nil returned.
    func startFollowedUpload(isolation: isolated (any Actor)? = #isolation, length: Int64,
                             into followed: FollowedUpload) async -> (any BlobTransfer, String)? {
        do {
            let transport = try dependencies.requireBlobs()
            let uploadId = try await relay.withReauthentication { () async throws(DeliveryFailure) in
                try await transport.startBlobUpload(length: length)
            }
            followed.started(uploadId)
            return (transport, uploadId)
        } catch {
            followed.failed(error)
            return nil
        }
    }

    /// Uploads the blob of a file while `AttachmentSending` seals it at
    /// `path` (`feed` says how far it is written and holds its latest
    /// bytes), each part sent as soon as it is sealed: the encryption and the
    /// upload overlap instead of one waiting for the other. The file is still
    /// written whole (it is the resumable copy): an upload cut off here (a
    /// session that expired mid-way included) continues from the relay's
    /// bytes at the next flush, from the upload id kept with the row.
    static func follow(_ upload: (transport: any BlobTransfer, id: String), file path: String, length: Int64, feed: SealedBlobFeed,
                       into followed: FollowedUpload, progress: @escaping @Sendable (Int64) -> Void) async {
        let growing = GrowingUploadFile(available: { try await feed.wait(beyond: $0) }, copyHeld: { feed.copy(at: $0, into: $1) })
        do {
            while true {
                let step = try await upload.transport.continueBlobUpload(id: upload.id, file: path, length: length, segmentBytes: uploadSegmentBytes,
                                                                         growing: growing, progress: progress)
                if let blobId = step.blobID {
                    followed.completed(blobId)
                    return
                }
            }
        } catch {
            followed.failed(error)
        }
    }

    /// Takes over attachment `attachment`, stored with its sealed file as
    /// `<id>.blob` while its upload followed the sealing: complete, its
    /// pointer is queued, as after any upload; cut off or
    /// refused, it is settled as a flush's upload would be, with the upload
    /// id kept so that the next attempt resumes after the relay's bytes.
    func adoptFollowed(_ followed: FollowedUpload, for attachment: StoredAttachment) {
        if let uploadId = followed.uploadId, attachment.uploadId != uploadId {
            try? store.write { try $0.attachments.setUploadId(uploadId, id: attachment.id, at: dependencies.clock.now()) }
        }
        if let blobId = followed.blobId {
            do {
                try recordUploaded(id: attachment.id, messageId: attachment.messageId, blobId: blobId,
                                   length: Int64(AttachmentBlob.blobLength(plaintextSize: UInt64(attachment.size))))
            } catch {
                settle(attachment, failure: error)
            }
        } else if let failure = followed.failure {
            settle(attachment, failure: failure)
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
        let id = attachment.id, progress = self.progress, transport = try dependencies.requireBlobs()
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
                    try await transport.continueBlobUpload(id: uploadId, file: path, length: length, segmentBytes: Self.uploadSegmentBytes,
                                                           growing: nil) { sent in
                        progress.report(AttachmentProgress(attachmentId: id, phase: .uploading, done: sent, total: length))
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

    /// Marks an attachment failed, with its message.
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
}
