import HushCrypto
import HushRelay
import Logging
import PostgresNIO

extension PostgresRelayStorage: MailboxStore {
    public func submit(_ deposit: DepositSubmission) async throws -> DepositOutcome {
        try await enqueue(deposit)
    }

    /// Every deposit of the fan-out in one transaction (retried whole on a
    /// conflict with another instance; each first-contact admission charged
    /// once): refusals fail alone, a database failure throws and stores none.
    public func submitFanOut(_ deposits: [DepositSubmission]) async throws -> [Result<DepositOutcome, any Error>] {
        try await enqueue(together: deposits)
    }

    public func messages(mailbox: [UInt8], after: UInt64, limit: Int, now: Int64) async throws -> [StoredEnvelope] {
        try await guarded {
            var envelopes: [StoredEnvelope] = []
            let page = MailboxPage(mailbox: mailbox, after: Int64(clamping: after), now: now, limit: Int64(max(0, limit)))
            for try await envelope in try await client.execute(page, logger: logger) { envelopes.append(envelope) }
            return envelopes
        }
    }

    public func acknowledge(mailbox: [UInt8], messageIDs: [UInt64]) async throws -> Int {
        let ids = Array(Set(messageIDs)).map { Int64(clamping: $0) }
        return try await transaction { connection in
            var count = 0, bytes: Int64 = 0
            let rows = try await connection.query("""
                WITH gone AS (DELETE FROM messages WHERE mailbox = \(mailbox.bytea) AND id = ANY(\(ids)) RETURNING size)
                SELECT count(*), coalesce(sum(size), 0) FROM gone
                """, logger: logger)
            for try await (deleted, size) in rows.decode((Int64, Int64).self) { (count, bytes) = (Int(deleted), size) }
            if count > 0 {
                try await connection.query("UPDATE mailboxes SET count = count - \(count), bytes = bytes - \(bytes) WHERE mailbox = \(mailbox.bytea)",
                                           logger: logger)
            }
            return count
        }
    }

    /// One transaction for a batch, through `DepositPolicy`; run again (a
    /// few times) when PostgreSQL reports a conflict with another instance.
    /// A refusal fails its deposit alone; a database failure fails the batch
    /// (throws 503: nothing of it is stored, every caller may retry).
    static func commitDeposits(_ batch: [PendingDeposit], client: PostgresClient, instance: String,
                               logger: Logger) async throws -> [Result<DepositOutcome, any Error>] {
        let batch = batch.map { PendingDeposit(submission: $0.submission.admittingOnce(), digest: $0.digest) }
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await client.withTransaction(logger: logger) { connection in
                    try await commit(batch, on: connection, instance: instance, logger: logger)
                }
            } catch where isRetryable(error) && attempt < 5 {
                // Apart in time from the transaction it collided with.
                try? await Task.sleep(for: .milliseconds(Int.random(in: 5...(20 * attempt))))
                continue
            } catch {
                logger.error("PostgreSQL failed", metadata: ["error": "\(PostgresFailure(error))"])
                throw RelayError.storageUnavailable
            }
        }
    }

    private static func commit(_ batch: [PendingDeposit], on connection: PostgresConnection, instance: String,
                               logger: Logger) async throws -> [Result<DepositOutcome, any Error>] {
        var ledger = try await snapshot(for: batch, on: connection, logger: logger)
        let results = try DepositPolicy.applyBatch(batch.map { ($0.submission, $0.digest) }, to: &ledger)
        let written = ledger.written
        guard !written.isEmpty else { return results }
        try await connection.query("""
            INSERT INTO messages (mailbox, id, created_at, expires_at, size, envelope)
            SELECT * FROM unnest(\(written.map(\.mailbox.bytea)), \(written.map { Int64(clamping: $0.record.messageID) }),
                \(written.map(\.record.timestamp)), \(written.map(\.record.expiresAt)),
                \(written.map { Int32($0.envelope.count) }), \(written.map(\.envelope.bytea)))
            """, logger: logger)
        try await connection.query("""
            INSERT INTO deposits (mailbox, request_id, envelope_digest, message_id, created_at, expires_at)
            SELECT * FROM unnest(\(written.map(\.mailbox.bytea)), \(written.map(\.requestID)), \(written.map(\.record.envelopeDigest.bytea)),
                \(written.map { Int64(clamping: $0.record.messageID) }), \(written.map(\.record.timestamp)), \(written.map(\.record.expiresAt)))
            """, logger: logger)
        let changed = ledger.mailboxes.filter(\.value.changed)
        try await connection.query("""
            UPDATE mailboxes AS m SET count = u.count, bytes = u.bytes, last_id = u.last_id
            FROM unnest(\(changed.map(\.key.bytea)), \(changed.map { Int64($0.value.usage.count) }),
                \(changed.map { Int64($0.value.usage.bytes) }), \(changed.map { Int64(clamping: $0.value.lastID) })) AS u(mailbox, count, bytes, last_id)
            WHERE m.mailbox = u.mailbox
            """, logger: logger)
        // Delivered at COMMIT, to every instance listening (this one skips its own).
        let notices = zip(batch, results).compactMap { pending, result -> String? in
            guard case let .success(.stored(record, previous)) = result else { return nil }
            return "\(instance) \(Hex.encode(pending.submission.mailbox)) \(record.messageID) \(previous)"
        }
        try await connection.query("SELECT pg_notify(\(depositChannel), n) FROM unnest(\(notices)) AS n", logger: logger)
        return results
    }

    /// Reads what the batch's checks need; locks the batch's mailbox rows.
    private static func snapshot(for batch: [PendingDeposit], on connection: PostgresConnection,
                                 logger: Logger) async throws -> PostgresDepositLedger {
        // Sorted, so that two instances lock shared mailboxes in the same order.
        let mailboxes = Set(batch.map(\.submission.mailbox)).sorted { $0.lexicographicallyPrecedes($1) }
        var rows: [[UInt8]: PostgresDepositLedger.MailboxRow] = [:]
        let locked = try await connection.query("""
            SELECT mailbox, count, bytes, last_id FROM mailboxes WHERE mailbox = ANY(\(mailboxes.map(\.bytea)))
            ORDER BY mailbox FOR UPDATE
            """, logger: logger)
        for try await (mailbox, count, bytes, lastID) in locked.decode((ByteBuffer, Int64, Int64, Int64).self) {
            rows[mailbox.bytes] = .init(usage: MailboxUsage(count: Int(count), bytes: Int(bytes)), lastID: UInt64(lastID))
        }
        var credentialPairs: [(mailbox: [UInt8], hash: [UInt8])] = []
        for pending in batch {
            if case let .credential(hash) = pending.submission.admission { credentialPairs.append((pending.submission.mailbox, hash)) }
        }
        var credentials: Set<PostgresDepositLedger.Key<[UInt8]>> = []
        if !credentialPairs.isEmpty {
            let found = try await connection.query("""
                SELECT c.mailbox, c.credential_hash FROM credentials c
                JOIN unnest(\(credentialPairs.map(\.mailbox.bytea)), \(credentialPairs.map(\.hash.bytea))) AS q(mailbox, hash)
                ON c.mailbox = q.mailbox AND c.credential_hash = q.hash
                """, logger: logger)
            for try await (mailbox, hash) in found.decode((ByteBuffer, ByteBuffer).self) {
                credentials.insert(.init(mailbox: mailbox.bytes, value: hash.bytes))
            }
        }
        var deposits: [PostgresDepositLedger.Key<String>: DepositRecord] = [:]
        let earlier = try await connection.query("""
            SELECT d.mailbox, d.request_id, d.message_id, d.created_at, d.expires_at, d.envelope_digest FROM deposits d
            JOIN unnest(\(batch.map(\.submission.mailbox.bytea)), \(batch.map(\.submission.requestID))) AS q(mailbox, request_id)
            ON d.mailbox = q.mailbox AND d.request_id = q.request_id
            """, logger: logger)
        for try await (mailbox, requestID, id, created, expires, digest) in earlier.decode((ByteBuffer, String, Int64, Int64, Int64, ByteBuffer).self) {
            deposits[.init(mailbox: mailbox.bytes, value: requestID)] = DepositRecord(
                messageID: UInt64(id), timestamp: created, expiresAt: expires, envelopeDigest: digest.bytes)
        }
        return PostgresDepositLedger(mailboxes: rows, credentials: credentials, deposits: deposits)
    }
}
