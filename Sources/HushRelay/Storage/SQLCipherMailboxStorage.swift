import HushCrypto
import HushDatabase
import HushProtocol
import HushRelayAPI
import Foundation

/// The embedded default driver: one SQLCipher file, one connection behind a
/// lock (SQLite serialises writers anyway), each operation one transaction.
/// Deposits go through a group commit: those that arrive while a commit is
/// in flight are checked and stored together in the next transaction, and
/// each caller is answered after the COMMIT that holds its deposit.
public final class SQLCipherMailboxStorage: MailboxStorage, @unchecked Sendable {
    // Unchecked: `database` and `ids` are touched only while `lock` is held;
    // `depositQueue` is set once in `init`, before the storage is shared.
    private let lock = NSLock()
    private let database: Database
    private var ids: MessageIDClock
    private var depositQueue: GroupCommitQueue<PendingDeposit, DepositOutcome>!

    /// Most deposits in one transaction: bounds how long a commit holds the lock.
    static let maxDepositsPerCommit = 256

    private struct PendingDeposit: Sendable {
        let submission: DepositSubmission
        /// Computed by the caller, so hashing runs in parallel, not on the writer.
        let digest: [UInt8]
    }

    /// Opens (creating and migrating) the database at `path` with `key`.
    public init(path: String, key: SecureBytes) throws {
        let database = try Database(path: path, key: key)
        try RelaySchema.migrator.migrate(database)
        let last = try database.queryFirst("SELECT max(m) FROM (SELECT max(id) AS m FROM messages UNION ALL SELECT max(message_id) FROM deposits)") {
            row in try row.get(0, as: Int64?.self)
        } ?? nil
        self.database = database
        self.ids = MessageIDClock(last: UInt64(max(0, last ?? 0)))
        self.depositQueue = GroupCommitQueue(label: "hush.relay.deposits", maxBatch: Self.maxDepositsPerCommit) { [weak self] batch in
            guard let self else { return batch.map { _ in .failure(RelayError.unavailable) } }
            return self.commitDeposits(batch)
        }
    }

    /// Runs `body` in one immediate transaction under the lock.
    private func write<T>(_ body: (Database, inout MessageIDClock) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        var ids = self.ids
        let result = try database.transaction(.immediate) { db in try body(db, &ids) }
        self.ids = ids
        return result
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    // MARK: Identities and prekeys

    public func register(identity: [UInt8], signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                         oneTimePrekeys: [SignedPrekey], registeredAt: Int64) async throws -> PrekeyCounts {
        try write { db, _ in
            let previous = try db.queryFirst("SELECT registered_at FROM identities WHERE identity = ?", [identity]) { try $0.get(0, as: Int64.self) }
            if let previous, previous >= registeredAt { throw RelayError.staleRegistration }
            // (No UPSERT: Debian's SQLCipher build does not parse ON CONFLICT … DO UPDATE.)
            if previous == nil {
                try db.execute("INSERT INTO identities (identity, registered_at, signed_prekey, last_resort_kem_prekey) VALUES (?, ?, ?, ?)",
                               [identity, registeredAt, PrekeyCodec.encode(signedPrekey), PrekeyCodec.encode(lastResortKEMPrekey)])
            } else {
                try db.execute("UPDATE identities SET registered_at = ?, signed_prekey = ?, last_resort_kem_prekey = ? WHERE identity = ?",
                               [registeredAt, PrekeyCodec.encode(signedPrekey), PrekeyCodec.encode(lastResortKEMPrekey), identity])
            }
            try Self.insertOneTime(oneTimePrekeys, identity: identity, db: db)
            return try Self.counts(identity: identity, db: db)
        }
    }

    public func isRegistered(identity: [UInt8]) async throws -> Bool {
        try read { db in try db.queryFirst("SELECT 1 FROM identities WHERE identity = ?", [identity]) { _ in true } ?? false }
    }

    public func addOneTimePrekeys(identity: [UInt8], _ prekeys: [SignedPrekey]) async throws -> PrekeyCounts {
        try write { db, _ in
            guard try db.queryFirst("SELECT 1 FROM identities WHERE identity = ?", [identity], { _ in true }) != nil else {
                throw RelayError.notFound("identity")
            }
            try Self.insertOneTime(prekeys, identity: identity, db: db)
            return try Self.counts(identity: identity, db: db)
        }
    }

    public func prekeyCounts(identity: [UInt8]) async throws -> PrekeyCounts {
        try read { db in
            guard try db.queryFirst("SELECT 1 FROM identities WHERE identity = ?", [identity], { _ in true }) != nil else {
                throw RelayError.notFound("identity")
            }
            return try Self.counts(identity: identity, db: db)
        }
    }

    public func takeBundle(identity: [UInt8], consumingOneTimePrekeys: Bool) async throws -> PrekeyBundle? {
        try write { db, _ in
            guard let (signed, lastResort) = try db.queryFirst(
                "SELECT signed_prekey, last_resort_kem_prekey FROM identities WHERE identity = ?", [identity],
                { row in (try row.get(0, as: [UInt8].self), try row.get(1, as: [UInt8].self)) }) else { return nil }
            let oneTime = consumingOneTimePrekeys ? try Self.takeOneTime(kind: .oneTimeX25519, identity: identity, db: db) : nil
            let kem = try (consumingOneTimePrekeys ? Self.takeOneTime(kind: .oneTimeKEM, identity: identity, db: db) : nil)
                ?? PrekeyCodec.decode(lastResort)
            return try PrekeyBundle(identityKey: IdentityKey(rawRepresentation: identity),
                                    signedPrekey: PrekeyCodec.decode(signed), kemPrekey: kem, oneTimePrekey: oneTime)
        }
    }

    private static func takeOneTime(kind: PrekeyKind, identity: [UInt8], db: Database) throws -> SignedPrekey? {
        guard let (id, bytes) = try db.queryFirst(
            "SELECT prekey_id, prekey FROM one_time_prekeys WHERE identity = ? AND kind = ? ORDER BY prekey_id LIMIT 1",
            [identity, Int(kind.rawValue)], { row in (try row.get(0, as: Int64.self), try row.get(1, as: [UInt8].self)) }) else { return nil }
        try db.execute("DELETE FROM one_time_prekeys WHERE identity = ? AND kind = ? AND prekey_id = ?", [identity, Int(kind.rawValue), id])
        return try PrekeyCodec.decode(bytes)
    }

    private static func insertOneTime(_ prekeys: [SignedPrekey], identity: [UInt8], db: Database) throws {
        let cap = RelayLimits.maxStoredOneTimePrekeysPerKind
        for prekey in prekeys where prekey.kind.isOneTime {
            let stored = try db.queryFirst("SELECT count(*) FROM one_time_prekeys WHERE identity = ? AND kind = ?",
                                           [identity, Int(prekey.kind.rawValue)]) { try $0.get(0, as: Int.self) } ?? 0
            guard stored < cap else { continue }
            try db.execute("INSERT OR IGNORE INTO one_time_prekeys (identity, kind, prekey_id, prekey) VALUES (?, ?, ?, ?)",
                           [identity, Int(prekey.kind.rawValue), Int64(prekey.id), PrekeyCodec.encode(prekey)])
        }
    }

    private static func counts(identity: [UInt8], db: Database) throws -> PrekeyCounts {
        let rows = try db.query("SELECT kind, count(*) FROM one_time_prekeys WHERE identity = ? GROUP BY kind", [identity]) { row in
            (try row.get(0, as: Int.self), try row.get(1, as: Int.self))
        }
        var counts = PrekeyCounts(oneTimeX25519: 0, oneTimeKEM: 0)
        for (kind, count) in rows {
            if kind == Int(PrekeyKind.oneTimeX25519.rawValue) { counts.oneTimeX25519 = count }
            if kind == Int(PrekeyKind.oneTimeKEM.rawValue) { counts.oneTimeKEM = count }
        }
        return counts
    }

    // MARK: Authentication

    public func storeChallenge(nonce: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
        try write { db, _ in
            try db.execute("INSERT OR REPLACE INTO challenges (nonce, identity, expires_at) VALUES (?, ?, ?)", [nonce, identity, expiresAt])
        }
    }

    public func consumeChallenge(nonce: [UInt8], identity: [UInt8], now: Int64) async throws -> Bool {
        try write { db, _ in
            guard let (owner, expiresAt) = try db.queryFirst("SELECT identity, expires_at FROM challenges WHERE nonce = ?", [nonce], {
                row in (try row.get(0, as: [UInt8].self), try row.get(1, as: Int64.self))
            }) else { return false }
            try db.execute("DELETE FROM challenges WHERE nonce = ?", [nonce])
            return owner == identity && expiresAt > now
        }
    }

    public func storeToken(hash: [UInt8], identity: [UInt8], expiresAt: Int64) async throws {
        try write { db, _ in
            try db.execute("INSERT OR REPLACE INTO tokens (token_hash, identity, expires_at) VALUES (?, ?, ?)", [hash, identity, expiresAt])
        }
    }

    public func tokenIdentity(hash: [UInt8], now: Int64) async throws -> TokenGrant? {
        try read { db in
            try db.queryFirst("SELECT identity, expires_at FROM tokens WHERE token_hash = ? AND expires_at > ?", [hash, now]) { row in
                TokenGrant(identity: try row.get(0, as: [UInt8].self), expiresAt: try row.get(1, as: Int64.self))
            }
        }
    }

    // MARK: Delivery credentials

    public func updateCredentials(mailbox: [UInt8], add: [[UInt8]], remove: [[UInt8]]) async throws -> Int {
        try write { db, _ in
            for hash in remove { try db.execute("DELETE FROM credentials WHERE mailbox = ? AND credential_hash = ?", [mailbox, hash]) }
            for hash in add { try db.execute("INSERT OR IGNORE INTO credentials (mailbox, credential_hash) VALUES (?, ?)", [mailbox, hash]) }
            let count = try db.queryFirst("SELECT count(*) FROM credentials WHERE mailbox = ?", [mailbox]) { try $0.get(0, as: Int.self) } ?? 0
            guard count <= RelayLimits.maxCredentialsPerMailbox else {
                throw RelayError.malformed("more than \(RelayLimits.maxCredentialsPerMailbox) credentials for one mailbox")
            }
            return count
        }
    }

    public func hasCredential(mailbox: [UInt8], hash: [UInt8]) async throws -> Bool {
        try read { db in
            try db.queryFirst("SELECT 1 FROM credentials WHERE mailbox = ? AND credential_hash = ?", [mailbox, hash]) { _ in true } ?? false
        }
    }

    // MARK: Mailboxes

    public func findDeposit(mailbox: [UInt8], requestID: String) async throws -> DepositRecord? {
        try read { db in try Self.depositRecord(mailbox: mailbox, requestID: requestID, db: db) }
    }

    private static func depositRecord(mailbox: [UInt8], requestID: String, db: Database) throws -> DepositRecord? {
        try db.queryFirst("SELECT message_id, created_at, expires_at, envelope_digest FROM deposits WHERE mailbox = ? AND request_id = ?",
                          [mailbox, requestID]) { row in
            DepositRecord(messageID: UInt64(try row.get(0, as: Int64.self)), timestamp: try row.get(1, as: Int64.self),
                          expiresAt: try row.get(2, as: Int64.self), envelopeDigest: try row.get(3, as: [UInt8].self))
        }
    }

    public func deposit(mailbox: [UInt8], requestID: String, envelope: [UInt8], now: Int64, expiresAt: Int64,
                        quota: MailboxQuota) async throws -> DepositOutcome {
        let digest = SHA256.hash(envelope)
        return try write { db, ids in
            let deposit = DepositSubmission(mailbox: mailbox, requestID: requestID, envelope: envelope, admission: .firstContact(admit: {}),
                                            now: now, expiresAt: expiresAt, quota: quota)
            return try Self.store(deposit, digest: digest, checks: false, db: db, ids: &ids)
        }
    }

    /// Registration, delivery right, idempotency, quota and the store in one
    /// step, batched with the deposits arriving meanwhile (group commit).
    public func submit(_ deposit: DepositSubmission) async throws -> DepositOutcome {
        try await depositQueue.submit(PendingDeposit(submission: deposit, digest: SHA256.hash(deposit.envelope)))
    }

    /// One transaction for the whole batch. A deposit refused by a check
    /// (404, 403, 409, 413, 429) has written nothing, so only it fails; a
    /// database failure rolls the transaction back and fails every deposit
    /// of the batch (each caller gets a 500 and may retry with its request
    /// id), so no answer ever claims a deposit that is not committed.
    private func commitDeposits(_ batch: [PendingDeposit]) -> [Result<DepositOutcome, any Error>] {
        lock.lock()
        defer { lock.unlock() }
        var ids = self.ids
        var results: [Result<DepositOutcome, any Error>] = []
        results.reserveCapacity(batch.count)
        do {
            try database.transaction(.immediate) { db in
                for pending in batch {
                    do {
                        results.append(.success(try Self.store(pending.submission, digest: pending.digest, checks: true, db: db, ids: &ids)))
                    } catch let refusal as RelayError {
                        results.append(.failure(refusal))
                    }
                }
            }
        } catch {
            return batch.map { _ in .failure(error) }
        }
        self.ids = ids
        return results
    }

    /// Checks (with `checks`: registration and delivery right) and stores one
    /// deposit inside the caller's transaction. Every refusal is thrown before
    /// the first write, so a refused deposit leaves nothing behind.
    private static func store(_ deposit: DepositSubmission, digest: [UInt8], checks: Bool, db: Database,
                              ids: inout MessageIDClock) throws -> DepositOutcome {
        let mailbox = deposit.mailbox, requestID = deposit.requestID, envelope = deposit.envelope
        if checks {
            guard try db.queryFirst("SELECT 1 FROM identities WHERE identity = ?", [mailbox], { _ in true }) != nil else {
                throw RelayError.notFound("mailbox")
            }
            if case let .credential(hash) = deposit.admission {
                guard try db.queryFirst("SELECT 1 FROM credentials WHERE mailbox = ? AND credential_hash = ?", [mailbox, hash], { _ in true }) != nil else {
                    throw RelayError.invalidCredential
                }
            }
        }
        if let earlier = try depositRecord(mailbox: mailbox, requestID: requestID, db: db) {
            guard ConstantTime.equals(earlier.envelopeDigest, digest) else {
                throw RelayError.conflict("request id already used with a different envelope")
            }
            return .repeated(earlier)
        }
        if checks, case let .firstContact(admit) = deposit.admission { try admit() }
        let usage = try db.queryFirst("SELECT count, bytes FROM mailbox_usage WHERE mailbox = ?", [mailbox]) { row in
            (try row.get(0, as: Int.self), try row.get(1, as: Int.self))
        }
        let (count, bytes) = usage ?? (0, 0)
        guard count < deposit.quota.maxCount, bytes + envelope.count <= deposit.quota.maxBytes else { throw RelayError.quotaExceeded }
        let id = ids.next(nowMilliseconds: deposit.now)
        try db.execute("INSERT INTO messages (id, mailbox, created_at, expires_at, size, envelope) VALUES (?, ?, ?, ?, ?, ?)",
                       [Int64(id), mailbox, deposit.now, deposit.expiresAt, envelope.count, envelope])
        if usage == nil {
            try db.execute("INSERT INTO mailbox_usage (mailbox, count, bytes) VALUES (?, 1, ?)", [mailbox, envelope.count])
        } else {
            try db.execute("UPDATE mailbox_usage SET count = count + 1, bytes = bytes + ? WHERE mailbox = ?", [envelope.count, mailbox])
        }
        try db.execute("INSERT INTO deposits (mailbox, request_id, envelope_digest, message_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
                       [mailbox, requestID, digest, Int64(id), deposit.now, deposit.expiresAt])
        return .stored(DepositRecord(messageID: id, timestamp: deposit.now, expiresAt: deposit.expiresAt, envelopeDigest: digest))
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

    public func acknowledge(mailbox: [UInt8], messageIDs: [UInt64]) async throws -> Int {
        try write { db, _ in
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

    // MARK: Blobs

    public func recordBlob(id: String, size: Int, uploader: [UInt8], quota: BlobQuota, createdAt: Int64, expiresAt: Int64) async throws {
        try write { db, _ in
            try quota.check(adding: size, to: try Self.blobUsage(uploader: uploader, now: createdAt, db: db))
            try db.execute("INSERT INTO blobs (id, size, created_at, expires_at, uploader) VALUES (?, ?, ?, ?, ?)",
                           [id, size, createdAt, expiresAt, uploader])
        }
    }

    public func blobUsage(uploader: [UInt8], now: Int64) async throws -> BlobUsage {
        try read { db in try Self.blobUsage(uploader: uploader, now: now, db: db) }
    }

    private static func blobUsage(uploader: [UInt8], now: Int64, db: Database) throws -> BlobUsage {
        try db.queryFirst("SELECT count(*), coalesce(sum(size), 0) FROM blobs WHERE uploader = ? AND expires_at > ?", [uploader, now]) {
            BlobUsage(count: try $0.get(0, as: Int.self), bytes: try $0.get(1, as: Int.self))
        } ?? BlobUsage(count: 0, bytes: 0)
    }

    public func blob(id: String, now: Int64) async throws -> BlobRecord? {
        try read { db in
            try db.queryFirst("SELECT size, created_at, expires_at FROM blobs WHERE id = ? AND expires_at > ?", [id, now]) { row in
                BlobRecord(id: id, size: try row.get(0, as: Int.self), createdAt: try row.get(1, as: Int64.self), expiresAt: try row.get(2, as: Int64.self),
                           uploader: nil)
            }
        }
    }

    // MARK: Maintenance

    public func sweep(now: Int64) async throws -> SweepResult {
        try write { db, _ in
            var result = SweepResult()
            let usage = try db.query("SELECT mailbox, count(*), sum(size) FROM messages WHERE expires_at <= ? GROUP BY mailbox", [now]) { row in
                (try row.get(0, as: [UInt8].self), try row.get(1, as: Int.self), try row.get(2, as: Int.self))
            }
            for (mailbox, count, bytes) in usage {
                try db.execute("UPDATE mailbox_usage SET count = count - ?, bytes = bytes - ? WHERE mailbox = ?", [count, bytes, mailbox])
                result.envelopes += count
            }
            try db.execute("DELETE FROM messages WHERE expires_at <= ?", [now])
            try db.execute("DELETE FROM mailbox_usage WHERE count <= 0")
            try db.execute("DELETE FROM deposits WHERE expires_at <= ?", [now])
            result.depositRecords = db.changes
            try db.execute("DELETE FROM challenges WHERE expires_at <= ?", [now])
            result.challenges = db.changes
            try db.execute("DELETE FROM tokens WHERE expires_at <= ?", [now])
            result.tokens = db.changes
            result.expiredBlobIDs = try db.query("SELECT id FROM blobs WHERE expires_at <= ? ORDER BY id", [now]) { try $0.get(0, as: String.self) }
            try db.execute("DELETE FROM blobs WHERE expires_at <= ?", [now])
            return result
        }
    }

    public func inventory() async throws -> RelayInventory {
        try read { db in
            var inventory = RelayInventory()
            inventory.identities = try db.query("""
                SELECT i.identity, i.registered_at, i.signed_prekey, i.last_resort_kem_prekey,
                    (SELECT count(*) FROM one_time_prekeys p WHERE p.identity = i.identity AND p.kind = 2),
                    (SELECT count(*) FROM one_time_prekeys p WHERE p.identity = i.identity AND p.kind = 4),
                    (SELECT count(*) FROM credentials c WHERE c.mailbox = i.identity)
                FROM identities i ORDER BY i.identity
                """) { row in
                RelayInventory.Identity(
                    identity: try row.get(0, as: [UInt8].self), registeredAt: try row.get(1, as: Int64.self),
                    signedPrekeyID: try PrekeyCodec.decode(row.get(2, as: [UInt8].self)).id,
                    lastResortKEMPrekeyID: try PrekeyCodec.decode(row.get(3, as: [UInt8].self)).id,
                    oneTimeX25519: try row.get(4, as: Int.self), oneTimeKEM: try row.get(5, as: Int.self),
                    credentials: try row.get(6, as: Int.self))
            }
            inventory.messages = try db.query("SELECT mailbox, id, created_at, expires_at, size FROM messages ORDER BY id") { row in
                RelayInventory.Message(mailbox: try row.get(0, as: [UInt8].self), messageID: UInt64(try row.get(1, as: Int64.self)),
                                       timestamp: try row.get(2, as: Int64.self), expiresAt: try row.get(3, as: Int64.self),
                                       size: try row.get(4, as: Int.self))
            }
            inventory.depositRecords = try db.queryFirst("SELECT count(*) FROM deposits") { try $0.get(0, as: Int.self) } ?? 0
            inventory.challenges = try db.queryFirst("SELECT count(*) FROM challenges") { try $0.get(0, as: Int.self) } ?? 0
            inventory.tokens = try db.queryFirst("SELECT count(*) FROM tokens") { try $0.get(0, as: Int.self) } ?? 0
            inventory.blobs = try db.query("SELECT id, size, created_at, expires_at, uploader FROM blobs ORDER BY id") { row in
                BlobRecord(id: try row.get(0, as: String.self), size: try row.get(1, as: Int.self),
                           createdAt: try row.get(2, as: Int64.self), expiresAt: try row.get(3, as: Int64.self),
                           uploader: try row.get(4, as: [UInt8]?.self))
            }
            return inventory
        }
    }
}
