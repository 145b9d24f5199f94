#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization
import HushCrypto
import HushProtocol
import HushRelayAPI
import HushStore

/// Sending a file (docs/PROTOCOL.md §10.3): the file is sealed into a blob
/// under the data directory while the blob is uploaded from it as it grows
/// (`AttachmentUploads.uploadWhileSealing`), and its message stored as
/// pending with no envelope yet. An upload that completed has its pointer
/// queued at once; one cut off or refused is `AttachmentUploads`'s from the
/// next flush on, resumed from the relay's bytes.
final class AttachmentSending {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private let files: AttachmentFiles?
    private let sweeper: AttachmentSweep
    private let uploads: AttachmentUploads
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, sealer: Sealer, files: AttachmentFiles?, sweeper: AttachmentSweep, uploads: AttachmentUploads) {
        self.uploads = uploads
        self.dependencies = dependencies
        self.sealer = sealer
        self.files = files
        self.sweeper = sweeper
    }

    /// Seals the file at `path` for `name`, uploading it as it is sealed,
    /// and stores its message as pending; returns the ids of the message and
    /// its attachment. Its pointer is queued when the upload completed, else
    /// the upload goes on at the next flush. `progress` hears the encryption
    /// (attachment id 0: the row is written once the file is sealed) and the
    /// upload.
    ///
    /// Once the file is sealed its copy is synced and kept as `<id>.blob`,
    /// and its row is written at once: an upload that completed by then is
    /// recorded with it; one still running gets its upload id recorded
    /// first, so that a process killed from then on resumes the upload at
    /// the next flush, as before. The copy stays after the upload: it is the
    /// sender's own copy of the file, which `hush fetch` decrypts and
    /// backups and exports hold, until the message is deleted.
    func prepare(isolation: isolated (any Actor)? = #isolation, file path: String, to name: String,
                 progress: (@Sendable (AttachmentProgress) -> Void)?) async throws -> (messageId: Int64, attachmentId: Int64) {
        let files = try AttachmentFiles.required(files)
        // A contact or a group (`hush send team --file …`), checked before the file is sealed.
        let conversation = try sealer.conversationForSending(to: name)
        let fileName = String(path.split(separator: "/").last ?? "")
        guard fileName.utf8.count <= ContentLimits.maxFileNameLength else {
            throw MessengerError.attachmentUnavailable("the file name is longer than \(ContentLimits.maxFileNameLength) bytes: rename the file")
        }
        let key = SecureBytes(randomCount: SecretStream.keyLength, using: dependencies.random)
        let sealed: (path: String, size: Int64, digest: [UInt8])
        let followed = AttachmentUploads.FollowedUpload()
        let following: Task<Void, Never>
        let stored = StoredAttachmentId()
        do {
            let source = try files.openSource(path)
            guard UInt64(source.size) <= ContentLimits.maxAttachmentSize else { throw ProtocolError.limitExceeded(what: "attachment size") }
            let sealingPath = files.sealingPath(using: dependencies.random)
            let length = Int64(AttachmentBlob.blobLength(plaintextSize: UInt64(source.size)))
            // The relay's upload first (a round trip, and a login if the session needs one).
            let started = await uploads.startFollowedUpload(length: length, into: followed)
            let feed = SealedBlobFeed()
            // The sealing runs on a thread of its own (it blocks on the disk and
            // the CPU) while the upload sends what it has written so far.
            let sealing = Task.detached { () async throws -> [UInt8] in
                try await runOnOwnThread {
                    do {
                        let digest = try files.seal(source, into: sealingPath, key: key, progress: { done, total in
                            progress?(AttachmentProgress(attachmentId: 0, phase: .encrypting, done: done, total: total))
                        }, wrote: feed.append)
                        feed.end(failed: false)
                        return digest
                    } catch {
                        feed.end(failed: true)
                        throw error
                    }
                }
            }
            if let upload = started {
                following = Task.detached {
                    await AttachmentUploads.follow(upload, file: sealingPath, length: length, feed: feed, into: followed) { sent in
                        // Heard once the row is written (until then the encryption is): from then on a kill resumes.
                        if let id = stored.sent(sent) {
                            progress?(AttachmentProgress(attachmentId: id, phase: .uploading, done: sent, total: length))
                        }
                    }
                }
            } else {
                following = Task {}
            }
            do {
                sealed = (sealingPath, source.size, try await sealing.value)
            } catch {
                // The upload stops at the bytes that will never come; the relay drops what it has.
                await following.value
                throw error
            }
        } catch let error as AttachmentFileError {
            throw MessengerError.attachmentUnavailable("cannot send the file: \(error)")
        } catch let ProtocolError.limitExceeded(what) {
            throw MessengerError.attachmentUnavailable("cannot send the file: \(what) is over the 4 GiB limit")
        }
        let length = Int64(AttachmentBlob.blobLength(plaintextSize: UInt64(sealed.size)))
        let uploaded = followed.blobId
        let ids: (messageId: Int64, attachmentId: Int64)
        do {
            // The copy must survive a crash once its row names it: the next
            // flush resumes an upload from it, and once uploaded it is the
            // sender's own copy of the file (`hush fetch`, backups, exports).
            try files.sync(sealed.path)
            let now = dependencies.clock.now()
            ids = try store.write { store in
                let message = NewMessage(conversationId: conversation, clientMessageId: MessageID.random(using: dependencies.random).description,
                                         direction: .outgoing, sender: dependencies.identity.address.description,
                                         body: StoredAttachment.summary(fileName: fileName, size: sealed.size), contentType: "attachment",
                                         status: .pending, createdAt: now,
                                         expiresAfter: try store.conversations.disappearingTimer(conversationId: conversation))
                guard case let .inserted(messageId) = try store.messages.insert(message) else {
                    throw StoreError.invalidArgument("client message id already used")
                }
                try dependencies.tellWritten(messageId)
                let id = try store.attachments.insert(
                    NewAttachment(messageId: messageId, direction: .outgoing, state: .uploading, fileName: fileName,
                                  mediaType: MediaType.guess(fileName: fileName), size: sealed.size, key: key, digest: sealed.digest,
                                  blobId: nil), at: now)
                files.remove(id)  // a reused row id's leftovers (see recordIncoming)
                // A second name for the sealed copy: the one a resumed upload
                // reads, and the sender's own copy once the relay holds it.
                try files.keep(sealed.path, as: id)
                if let uploaded {
                    // In the same transaction: the pointer is queued with its message.
                    try uploads.recordUploaded(id: id, messageId: messageId, blobId: uploaded, length: length)
                } else {
                    // Held by this process until the upload still running ends: a flush elsewhere leaves it alone.
                    _ = try store.attachments.claimUpload(id: id, holder: getpid(), until: now + AttachmentUploads.uploadLeaseMillis, now: now,
                                                          isAlive: TransferHolder.isAlive)
                    if let uploadId = followed.uploadId {
                        try store.attachments.setUploadId(uploadId, id: id, at: now)
                    }
                }
                return (messageId, id)
            }
        } catch {
            following.cancel()
            await following.value
            // Our own sealing file (a whole encrypted copy) is ours to remove:
            // the sweep leaves the files of live processes alone.
            unlink(sealed.path)
            sweeper.sweep()
            throw error
        }
        if let sent = stored.set(ids.attachmentId) {
            progress?(AttachmentProgress(attachmentId: ids.attachmentId, phase: .uploading, done: sent, total: length))
        }
        if uploaded != nil {
            unlink(sealed.path)  // the copy stays as `<id>.blob`
            return ids
        }
        await following.value
        unlink(sealed.path)  // the copy stays as `<id>.blob`
        if let attachment = try store.attachments.attachment(id: ids.attachmentId) {
            uploads.adoptFollowed(followed, for: attachment)
        }
        try? store.write { try $0.attachments.releaseTransfer(id: ids.attachmentId) }
        return ids
    }

}

/// The attachment row's id once it is written, and how far the upload that
/// follows the sealing got, for the progress it reports from its own task.
private final class StoredAttachmentId: Sendable {
    private let state = Mutex<(id: Int64?, sent: Int64)>((nil, 0))

    /// Records the upload's position; returns the row's id once there is one.
    func sent(_ bytes: Int64) -> Int64? {
        state.withLock { state in
            state.sent = bytes
            return state.id
        }
    }

    /// The row is written; returns how far the upload got (nil: not started).
    func set(_ id: Int64) -> Int64? {
        state.withLock { state in
            state.id = id
            return state.sent > 0 ? state.sent : nil
        }
    }
}

/// Runs `work` on a Dispatch worker thread, not one of the concurrency pool's
/// few, which it would hold for as long as a file takes to seal.
private func runOnOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
    }
}
