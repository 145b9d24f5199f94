import HushCrypto
import HushDatabase

/// The `attachments` table: pointers and transfer state (see `AttachmentState`).
public struct AttachmentRepository {
    let database: Database

    private static let columns = """
        a.id, a.message_id, m.conversation_id, a.direction, a.state, a.file_name, a.media_type, a.size,
        a.file_key, a.digest, a.blob_id, a.transferred, a.last_error, a.created_at, a.upload_id, m.direction
        """

    @discardableResult
    public func insert(_ attachment: NewAttachment, at time: Milliseconds) throws -> Int64 {
        try database.execute("""
            INSERT INTO attachments(message_id, direction, state, file_name, media_type, size, file_key, digest, blob_id,
                                    created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [attachment.messageId, attachment.direction.rawValue, attachment.state.rawValue, attachment.fileName,
                  attachment.mediaType, attachment.size, attachment.key.copyBytes(), attachment.digest, attachment.blobId, time, time])
        return database.lastInsertRowID
    }

    public func attachment(id: Int64) throws -> StoredAttachment? {
        try database.queryFirst("SELECT \(Self.columns) FROM attachments a JOIN messages m ON m.id = a.message_id WHERE a.id = ?",
                                [id], Self.decode)
    }

    public func attachment(messageId: Int64) throws -> StoredAttachment? {
        try database.queryFirst("SELECT \(Self.columns) FROM attachments a JOIN messages m ON m.id = a.message_id WHERE a.message_id = ?",
                                [messageId], Self.decode)
    }

    /// Every attachment, or a conversation's, oldest first.
    public func list(conversationId: Int64? = nil) throws -> [StoredAttachment] {
        if let conversationId {
            return try database.query("""
                SELECT \(Self.columns) FROM attachments a JOIN messages m ON m.id = a.message_id
                WHERE m.conversation_id = ? ORDER BY a.id
                """, [conversationId], Self.decode)
        }
        return try database.query("SELECT \(Self.columns) FROM attachments a JOIN messages m ON m.id = a.message_id ORDER BY a.id",
                                  [], Self.decode)
    }

    public func list(state: AttachmentState) throws -> [StoredAttachment] {
        try database.query("""
            SELECT \(Self.columns) FROM attachments a JOIN messages m ON m.id = a.message_id WHERE a.state = ? ORDER BY a.id
            """, [state.rawValue], Self.decode)
    }

    /// Outgoing files waiting to upload whose next attempt is due at `now`.
    public func dueUploads(at now: Milliseconds) throws -> [StoredAttachment] {
        try database.query("""
            SELECT \(Self.columns) FROM attachments a JOIN messages m ON m.id = a.message_id
            WHERE a.state = 'uploading' AND a.direction = 'out' AND coalesce(a.upload_next_attempt_at, 0) <= ? ORDER BY a.id
            """, [now], Self.decode)
    }

    /// The earliest next attempt of an upload waiting out its backoff.
    public func nextUploadAttempt() throws -> Milliseconds? {
        try database.queryFirst("SELECT min(upload_next_attempt_at) FROM attachments WHERE state = 'uploading'") { try $0.get(0, as: Int64?.self) } ?? nil
    }

    /// A failed upload attempt that will be tried again: counts it and sets
    /// the next attempt `delay(failures)` after `now`. Returns the count.
    @discardableResult
    public func deferUpload(id: Int64, error: String, at now: Milliseconds, delay: (Int) -> Milliseconds) throws -> Int {
        let failures = (try database.queryFirst("SELECT upload_failures FROM attachments WHERE id = ?", [id]) { try $0.get(0, as: Int.self) } ?? 0) + 1
        try database.execute("""
            UPDATE attachments SET state = 'uploading', last_error = ?, upload_failures = ?, upload_next_attempt_at = ?, updated_at = ? WHERE id = ?
            """, [error, failures, now + delay(failures), now, id])
        return failures
    }

    /// `hush retry`: every waiting upload is due now.
    public func makeUploadsDueNow() throws {
        try database.execute("UPDATE attachments SET upload_next_attempt_at = NULL WHERE state = 'uploading'")
    }

    /// Every row id, to find blob files whose attachment is gone.
    public func allIds() throws -> Set<Int64> {
        Set(try database.query("SELECT id FROM attachments") { try $0.get(0, as: Int64.self) })
    }

    public func setState(_ state: AttachmentState, id: Int64, error: String? = nil, at time: Milliseconds) throws {
        try database.execute("UPDATE attachments SET state = ?, last_error = ?, updated_at = ? WHERE id = ?",
                             [state.rawValue, error, time, id])
    }

    /// The relay took the blob: its id, and the upload is done.
    public func setUploaded(blobId: String, id: Int64, at time: Milliseconds) throws {
        try database.execute("""
            UPDATE attachments SET state = 'uploaded', blob_id = ?, last_error = NULL, upload_lease_until = NULL, upload_lease_pid = NULL,
                upload_failures = 0, upload_next_attempt_at = NULL, updated_at = ? WHERE id = ?
            """, [blobId, time, id])
    }

    /// Claims the outgoing upload `id` for the process `holder` until
    /// `until` if it is still waiting to upload and no unexpired lease of
    /// another live process (`isAlive`), nor one of `holder` itself (another
    /// task of this process), holds it. Call inside a write transaction (the
    /// check and the claim are then atomic, also across processes). Returns
    /// whether the caller holds it now.
    public func claimUpload(id: Int64, holder: Int32, until: Milliseconds, now: Milliseconds,
                            isAlive: (Int32) -> Bool) throws -> Bool {
        guard let lease = try database.queryFirst("""
            SELECT upload_lease_until, upload_lease_pid FROM attachments WHERE id = ? AND state = 'uploading'
            """, [id], { row -> (Int64?, Int64?) in (try row.get(0), try row.get(1)) }) else { return false }
        if let leaseUntil = lease.0, leaseUntil >= now, let pid = lease.1.map(Int32.init(truncatingIfNeeded:)),
           pid == holder || isAlive(pid) {
            return false
        }
        try database.execute("UPDATE attachments SET upload_lease_until = ?, upload_lease_pid = ? WHERE id = ?", [until, Int64(holder), id])
        return true
    }

    /// Extends the lease held on the upload `id` (after a part landed).
    public func renewUploadLease(id: Int64, until: Milliseconds) throws {
        try database.execute("UPDATE attachments SET upload_lease_until = ? WHERE id = ? AND upload_lease_until IS NOT NULL", [until, id])
    }

    /// Claims the received attachment `id` for a download by the process
    /// `holder` and marks it `downloading`, unless a download of a live
    /// process (`isAlive`, or `holder` itself in another task) holds it. The
    /// holder is kept in the upload lease's pid column (one transfer at a
    /// time per row). Call inside a write transaction.
    public func claimDownload(id: Int64, holder: Int32, at time: Milliseconds, isAlive: (Int32) -> Bool) throws -> Bool {
        guard let row = try database.queryFirst("SELECT state, upload_lease_pid FROM attachments WHERE id = ?", [id], { row -> (String, Int64?) in
            (try row.get(0), try row.get(1))
        }) else { return false }
        if row.0 == AttachmentState.downloading.rawValue, let pid = row.1.map(Int32.init(truncatingIfNeeded:)), pid == holder || isAlive(pid) {
            return false
        }
        try database.execute("""
            UPDATE attachments SET state = 'downloading', last_error = NULL, upload_lease_pid = ?, upload_lease_until = NULL, updated_at = ?
            WHERE id = ?
            """, [Int64(holder), time, id])
        return true
    }

    /// Puts downloads whose process is gone (killed mid-way, or from before
    /// downloads had a holder) back to `available` with `reason`: what they
    /// kept stays on disk for the next fetch to resume. Returns how many.
    @discardableResult
    public func interruptAbandonedDownloads(reason: String, at time: Milliseconds, isAlive: (Int32) -> Bool) throws -> Int {
        let rows = try database.query("SELECT id, upload_lease_pid FROM attachments WHERE state = 'downloading'") { row -> (Int64, Int64?) in
            (try row.get(0), try row.get(1))
        }
        var interrupted = 0
        for (id, pid) in rows where pid.map({ !isAlive(Int32(truncatingIfNeeded: $0)) }) ?? true {
            try database.execute("""
                UPDATE attachments SET state = 'available', last_error = ?, upload_lease_pid = NULL, upload_lease_until = NULL, updated_at = ?
                WHERE id = ? AND state = 'downloading'
                """, [reason, time, id])
            interrupted += 1
        }
        return interrupted
    }

    /// Gives up the lease on the transfer `id` (an upload or a download: done, or to be retried later).
    public func releaseTransfer(id: Int64) throws {
        try database.execute("UPDATE attachments SET upload_lease_until = NULL, upload_lease_pid = NULL WHERE id = ?", [id])
    }

    /// The relay's id of the resumable upload in progress (nil: start a new one).
    public func setUploadId(_ uploadId: String?, id: Int64, at time: Milliseconds) throws {
        try database.execute("UPDATE attachments SET upload_id = ?, updated_at = ? WHERE id = ?", [uploadId, time, id])
    }

    public func setTransferred(_ bytes: Int64, id: Int64, at time: Milliseconds) throws {
        try database.execute("UPDATE attachments SET transferred = ?, updated_at = ? WHERE id = ?", [bytes, time, id])
    }

    private static func decode(_ row: Row) throws -> StoredAttachment {
        StoredAttachment(
            id: try row.get(0), messageId: try row.get(1), conversationId: try row.get(2),
            direction: MessageDirection(rawValue: try row.get(3)) ?? .incoming,
            state: AttachmentState(rawValue: try row.get(4)) ?? .failed,
            fileName: try row.get(5), mediaType: try row.get(6), size: try row.get(7),
            key: SecureBytes(copying: try row.get(8, as: [UInt8].self)), digest: try row.get(9), blobId: try row.get(10),
            transferred: try row.get(11), lastError: try row.get(12), createdAt: try row.get(13), uploadId: try row.get(14),
            sentByUs: MessageDirection(rawValue: try row.get(15)) == .outgoing)
    }
}
