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

/// Sending a file (docs/PROTOCOL.md §10.3): the file is sealed into a blob
/// under the data directory and its message stored as pending with no
/// envelope yet. `AttachmentUploads` takes it from there at the next flush.
final class AttachmentSending {
    private let dependencies: MessengerDependencies
    private let sealer: Sealer
    private let files: AttachmentFiles?
    private let sweeper: AttachmentSweep
    private var store: MessageStore { dependencies.store }

    init(_ dependencies: MessengerDependencies, sealer: Sealer, files: AttachmentFiles?, sweeper: AttachmentSweep) {
        self.dependencies = dependencies
        self.sealer = sealer
        self.files = files
        self.sweeper = sweeper
    }

    /// Seals the file at `path` for `name` and stores its message as pending;
    /// returns the ids of the message and its attachment. The upload happens
    /// at the next flush. `progress` hears the encryption (attachment id 0:
    /// the row is written once the file is sealed).
    func prepare(file path: String, to name: String,
                 progress: (@Sendable (AttachmentProgress) -> Void)?) throws -> (messageId: Int64, attachmentId: Int64) {
        let files = try AttachmentFiles.required(files)
        // A contact or a group (`hush send team --file …`), checked before the file is sealed.
        let conversation = try sealer.conversationForSending(to: name)
        let fileName = String(path.split(separator: "/").last ?? "")
        guard fileName.utf8.count <= ContentLimits.maxFileNameLength else {
            throw MessengerError.attachmentUnavailable("the file name is longer than \(ContentLimits.maxFileNameLength) bytes: rename the file")
        }
        let key = SecureBytes(randomCount: SecretStream.keyLength, using: dependencies.random)
        let sealed: (path: String, size: Int64, digest: [UInt8])
        do {
            sealed = try files.seal(path, key: key, using: dependencies.random) { done, total in
                progress?(AttachmentProgress(attachmentId: 0, phase: .encrypting, done: done, total: total))
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
                                         body: StoredAttachment.summary(fileName: fileName, size: sealed.size), contentType: "attachment",
                                         status: .pending, createdAt: now,
                                         expiresAfter: try store.conversations.disappearingTimer(conversationId: conversation))
                guard case let .inserted(messageId) = try store.messages.insert(message) else {
                    throw StoreError.invalidArgument("client message id already used")
                }
                let id = try store.attachments.insert(
                    NewAttachment(messageId: messageId, direction: .outgoing, state: .uploading, fileName: fileName,
                                  mediaType: MediaType.guess(fileName: fileName), size: sealed.size, key: key, digest: sealed.digest,
                                  blobId: nil), at: now)
                files.remove(id)  // a reused row id's leftovers (see recordIncoming)
                try files.adopt(sealed.path, as: id)
                return (messageId, id)
            }
        } catch {
            // Our own sealing file (a whole encrypted copy) is ours to remove:
            // the sweep leaves the files of live processes alone.
            unlink(sealed.path)
            sweeper.sweep()
            throw error
        }
    }
}
