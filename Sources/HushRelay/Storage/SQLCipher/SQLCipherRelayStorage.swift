import HushCrypto
import HushDatabase
import HushRelayAPI
import Foundation

/// The embedded default driver: one SQLCipher file, one connection behind a
/// lock (SQLite serialises writers anyway), each operation one transaction.
/// Deposits go through a group commit: those that arrive while a commit is
/// in flight are checked and stored together in the next transaction, and
/// each caller is answered after the COMMIT that holds its deposit. The
/// stores are extensions in the files beside this one.
public final class SQLCipherRelayStorage: @unchecked Sendable {
    // Unchecked: `database` and `ids` are touched only while `lock` is held;
    // `depositQueue` is set once in `init`, before the storage is shared.
    private let lock = NSLock()
    private let database: Database
    private var ids: MessageIDClock
    private var depositQueue: GroupCommitQueue<PendingDeposit, DepositOutcome>!

    /// Most deposits in one transaction: bounds how long a commit holds the lock.
    static let maxDepositsPerCommit = 256

    /// KiB of decrypted pages SQLite keeps (SQLite's default is 2,000). Every
    /// page it must read again costs a read from the file and SQLCipher's
    /// decryption and MAC check: with the default, a profile of deposits
    /// under load spent most of the relay's CPU there (libcrypto and the
    /// kernel's file reads), as mailboxes outgrew the cache.
    static let pageCacheKiB = 65_536

    struct PendingDeposit: Sendable {
        let submission: DepositSubmission
        /// Computed by the caller, so hashing runs in parallel, not on the writer.
        let digest: [UInt8]
    }

    /// Opens (creating and migrating) the database at `path` with `key`.
    public init(path: String, key: SecureBytes) throws {
        let database = try Database(path: path, key: key)
        try RelaySchema.migrator.migrate(database)
        try database.execute("PRAGMA cache_size = -\(Self.pageCacheKiB)")
        // A checkpoint inside a deposit's commit held every deposit queued
        // behind it (the tail of deposit → push latency): done beside it.
        database.checkpointInBackground(key: key)
        let last = try database.queryFirst("SELECT max(m) FROM (SELECT max(id) AS m FROM messages UNION ALL SELECT max(message_id) FROM deposits)") {
            row in try row.get(0, as: Int64?.self)
        } ?? nil
        self.database = database
        self.ids = MessageIDClock(last: UInt64(max(0, last ?? 0)))
        self.depositQueue = GroupCommitQueue(label: "hush.relay.deposits", maxBatch: Self.maxDepositsPerCommit) { [weak self] (batch: [PendingDeposit]) in
            guard let self else { throw RelayError.unavailable }
            return try self.commitDeposits(batch)
        }
    }

    /// Runs `body` in one immediate transaction under the lock; `.deferred`
    /// only for what may be undone by a power loss with no harm (see `acknowledge`).
    func write<T>(durability: Database.Durability = .synced, _ body: (Database) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try database.transaction(.immediate, durability: durability) { db in try body(db) }
    }

    /// Commits made without waiting for the disk, since the file was opened.
    var deferredCommits: Int { (try? read { $0.deferredCommits }) ?? 0 }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    /// Queues the deposit for the next group commit.
    func enqueue(_ deposit: DepositSubmission) async throws -> DepositOutcome {
        try await depositQueue.submit(PendingDeposit(submission: deposit, digest: SHA256.hash(deposit.envelope)))
    }

    /// Queues the deposits together: they commit in the same transaction as
    /// each other (and as whatever else is in that batch), all or none.
    func enqueue(together deposits: [DepositSubmission]) async throws -> [Result<DepositOutcome, any Error>] {
        try await depositQueue.submitTogether(DepositSubmission.digested(deposits).map { PendingDeposit(submission: $0.submission, digest: $0.digest) })
    }

    /// One transaction for the whole batch, through `DepositPolicy`. The id
    /// clock advances only when the transaction commits; a failed one throws
    /// (every caller of the batch fails: nothing of it is stored).
    private func commitDeposits(_ batch: [PendingDeposit]) throws -> [Result<DepositOutcome, any Error>] {
        lock.lock()
        defer { lock.unlock() }
        var ledger = SQLCipherDepositLedger(db: database, ids: ids)
        let results = try database.transaction(.immediate) { _ in
            try DepositPolicy.applyBatch(batch.map { ($0.submission, $0.digest) }, to: &ledger)
        }
        ids = ledger.ids
        return results
    }
}
