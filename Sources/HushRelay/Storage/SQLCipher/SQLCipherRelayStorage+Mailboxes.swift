import HushDatabase
import HushRelayAPI

extension SQLCipherRelayStorage: MailboxStore {
    /// Registration, delivery right, idempotency, quota and the store in one
    /// step, batched with the deposits arriving meanwhile (group commit).
    public func submit(_ deposit: DepositSubmission) async throws -> DepositOutcome {
        try await enqueue(deposit)
    }

    /// Every deposit of the fan-out in one transaction (the group commit's, shared
    /// with whatever else arrived meanwhile): refusals fail alone, a database
    /// failure throws and stores none.
    public func submitFanOut(_ deposits: [DepositSubmission]) async throws -> [Result<DepositOutcome, any Error>] {
        try await enqueue(together: deposits)
    }

    public func messages(mailbox: [UInt8], after: UInt64, limit: Int, now: Int64) async throws -> [StoredEnvelope] {
        try read { db in
            try db.query("""
                SELECT id, created_at, expires_at, envelope FROM messages
                WHERE mailbox = ? AND id > ? AND expires_at > ? ORDER BY id LIMIT ?
                """, [mailbox, Int64(clamping: after), now, limit]) { row in
                StoredEnvelope(messageID: UInt64(try row.get(0, as: Int64.self)), timestamp: try row.get(1, as: Int64.self),
                               expiresAt: try row.get(2, as: Int64.self), envelope: try row.get(3, as: [UInt8].self))
            }
        }
    }

    /// Deletes what the owner acknowledged, in a commit that does not wait
    /// for the disk: a deletion a power loss undoes only delivers those
    /// envelopes again, and the client acknowledges what it finds already
    /// processed without storing it twice (docs/RELAY-API.md, ack). The
    /// next deposit's synced commit fsyncs the log, this commit with it.
    /// Synced, it cost a fsync under the lock every deposit waits for: one
    /// per settled batch of pushes on the e2e path (`make bench BENCH=e2e`).
    public func acknowledge(mailbox: [UInt8], messageIDs: [UInt64]) async throws -> Int {
        try write(durability: .deferred) { db in
            var deleted = 0
            var bytes = 0
            for id in Set(messageIDs) {
                guard let size = try db.queryFirst("SELECT size FROM messages WHERE id = ? AND mailbox = ?", [Int64(clamping: id), mailbox], {
                    try $0.get(0, as: Int.self)
                }) else { continue }
                try db.execute("DELETE FROM messages WHERE id = ?", [Int64(clamping: id)])
                deleted += 1
                bytes += size
            }
            if deleted > 0 {
                try db.execute("UPDATE mailbox_usage SET count = count - ?, bytes = bytes - ? WHERE mailbox = ?", [deleted, bytes, mailbox])
            }
            return deleted
        }
    }
}
