import Foundation
import HushCrypto
import HushDatabase
import HushStore
import Synchronization

/// Inserts a restore's rows into the new store on a thread of its own, while
/// the thread reading the archive goes on to decrypt and write the attachment
/// files: a restore takes the longer of the two instead of their sum.
///
/// The reading thread hands over table records and rows in batches through a
/// bounded queue, so memory stays flat whatever the store's size. This thread
/// checks every row exactly as a verify does (`BackupValue.readRow`) before
/// inserting it, all in one transaction: when either thread fails, that
/// transaction rolls back and the store keeps nothing.
///
/// The reading thread must end every loader with `finish` or `abandon` (in a
/// `defer`): the loading thread holds it until one of them comes.
///
/// `@unchecked Sendable`: the connection is used by the loading thread alone
/// from `init` until `finish` or `abandon` has returned, and by nobody after;
/// `batch` and `ended` by the reading thread alone.
final class BackupRowLoader: @unchecked Sendable {
    /// What the reading thread hands over, in archive order.
    enum Step: Sendable {
        case table(name: String, columns: [String])
        case rows(RowBatch)
        /// No more rows (the files begin): the derived parts are built while the files are written.
        case endOfRows(createdAt: UInt64)
        /// The archive ended well: the transaction commits.
        case commit
        /// The reading thread failed: the transaction rolls back.
        case abandon
    }

    /// Row records' bytes one after another; record `i` ends at `ends[i]`.
    struct RowBatch: Sendable {
        var bytes: [UInt8] = []
        var ends: [Int] = []
    }

    /// A batch is handed over once it holds this many bytes of rows.
    static let batchLength = 256 << 10
    /// At most this many batches wait (32 MiB): the 100,000 messages of
    /// issue 32's home (about 20 MiB of rows) fit whole, so the reading
    /// thread never waits for the inserts; and the bound sits below what
    /// the restore's key derivation (Argon2id, 64 MiB, freed before the
    /// rows) already took, so the queue does not raise the peak.
    static let maximumWaitingBatches = 128

    private let database: Database
    private let steps: BoundedHandover<Step>
    private var batch = RowBatch()
    /// Set by the loading thread when it fails: the reading thread stops at its next hand-over.
    private let failure = Mutex<(any Error)?>(nil)
    private let outcome = Mutex<Result<BackupSchedule?, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)
    private var ended = false
    private var rowsEnded = false

    /// Starts the loading thread on `database` (a new, empty store);
    /// `waitingBatches` is lowered only by tests, to make the queue fill.
    init(database: Database, waitingBatches: Int = BackupRowLoader.maximumWaitingBatches) {
        self.database = database
        steps = BoundedHandover(capacity: waitingBatches)
        let thread = Thread { [self] in
            let result = Result { try load() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        thread.name = "hush.restore.rows"
        thread.start()
    }

    /// A table record: the rows after it go into `name`'s `columns`.
    func beginTable(_ name: String, columns: [String]) throws {
        try handOver()
        try put(.table(name: name, columns: columns))
    }

    /// A row record's body (checked and inserted on the loading thread).
    func appendRow(_ body: BackupRecordParser) throws {
        batch.bytes.append(contentsOf: body.rest)
        batch.ends.append(batch.bytes.count)
        if batch.bytes.count >= Self.batchLength { try handOver() }
    }

    /// After the last row (at the first file record, or the end): the loading
    /// thread builds the derived parts (the search index), drops the archived
    /// backup schedule and records when the archive was made (`createdAt`),
    /// while the reading thread goes on with the files. Once only.
    func endOfRows(createdAt: UInt64) throws {
        guard !rowsEnded else { return }
        rowsEnded = true
        try handOver()
        try put(.endOfRows(createdAt: createdAt))
    }

    /// After the archive's end record, checked: commits and checkpoints;
    /// returns once that is done, with the archived backup schedule dropped.
    ///
    /// - Throws: the first failure of the loading thread (the store then holds nothing).
    func finish(createdAt: UInt64) throws -> BackupSchedule? {
        do {
            try endOfRows(createdAt: createdAt)
        } catch {
            abandon()
            throw error
        }
        ended = true
        steps.put(.commit)
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// The reading thread failed: rolls the store back; returns once the
    /// loading thread has stopped. Does nothing after `finish`.
    func abandon() {
        guard !ended else { return }
        ended = true
        steps.put(.abandon)
        done.wait()
    }

    private func handOver() throws {
        guard !batch.ends.isEmpty else { return }
        let full = batch
        batch = RowBatch()
        try put(.rows(full))
    }

    private func put(_ step: Step) throws {
        if let error = failure.withLock({ $0 }) { throw error }
        steps.put(step)
    }

    /// The loading thread: every step in one transaction; after a failure, it
    /// takes what the reading thread still hands over until it stops, so the
    /// queue ends empty and the reading thread never waits on a full queue.
    private func load() throws -> BackupSchedule? {
        var stopped = false
        do {
            let schedule = try database.transaction(.immediate) { db -> BackupSchedule? in
                try db.execute("PRAGMA defer_foreign_keys = ON")
                var insert: Statement?
                var columns = 0
                var derived: BackupSchedule??
                while true {
                    let step = steps.take()
                    switch step {
                    case .table, .rows, .endOfRows: if derived != nil { throw BackupArchive.damaged("it holds rows after its files") }
                    case .commit, .abandon: break
                    }
                    switch step {
                    case let .table(name, names):
                        insert = nil
                        insert = try Self.prepareInsert(into: name, columns: names, db)
                        columns = names.count
                    case var .rows(rows):
                        defer { ConstantTime.wipe(&rows.bytes) }
                        guard let insert else { throw BackupArchive.damaged("a row comes before its table") }
                        var start = 0
                        for end in rows.ends {
                            var parser = BackupRecordParser(rows.bytes, from: start, to: end)
                            try BackupValue.readRow(from: &parser, columns: columns, into: insert)
                            start = end
                        }
                    case let .endOfRows(createdAt):
                        insert = nil
                        derived = .some(try Self.finishStore(db, createdAt: createdAt))
                    case .commit:
                        stopped = true
                        guard let derived else { preconditionFailure("finish hands over the end of the rows before the commit") }
                        return derived
                    case .abandon:
                        stopped = true
                        throw CancellationError()
                    }
                }
            }
            try database.checkpoint()
            return schedule
        } catch {
            failure.withLock { $0 = error }
            while !stopped {
                switch steps.take() {
                case .commit, .abandon: stopped = true
                case var .rows(rows): ConstantTime.wipe(&rows.bytes)
                case .table, .endOfRows: break
                }
            }
            throw error
        }
    }

    /// Empties the table `name` (a new store's defaults) and prepares the
    /// insert of its rows, once its columns are known to fit this hush's store.
    private static func prepareInsert(into name: String, columns: [String], _ db: Database) throws -> Statement {
        let existing = try db.query("PRAGMA table_info(" + BackupCreation.quoted(name) + ")") { try $0[1] as String }
        guard !existing.isEmpty, columns.allSatisfy(existing.contains) else {
            throw BackupArchive.damaged("its table \(name) does not fit this hush's store")
        }
        try db.execute("DELETE FROM " + BackupCreation.quoted(name))
        let sql = "INSERT INTO " + BackupCreation.quoted(name) + "(" + columns.map(BackupCreation.quoted).joined(separator: ", ")
            + ") VALUES (" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return try db.prepare(sql)
    }

    /// What a restore does once every row is in: the search index rebuilt
    /// (it is not archived), the archived backup schedule dropped (returned:
    /// it names the old machine's folders), the archive's date recorded, and
    /// the archived home's relay registration and login forgotten: the
    /// restored home registers on its own before it uses the relay
    /// (docs/PROTOCOL.md §19.4, "One home per key").
    private static func finishStore(_ db: Database, createdAt: UInt64) throws -> BackupSchedule? {
        for index in try BackupCreation.virtualTables(db) {
            let quoted = BackupCreation.quoted(index)
            try db.execute("INSERT INTO \(quoted)(\(quoted)) VALUES ('rebuild')")
        }
        let schedule = try HushAccount.removeBackupSchedule(from: db)
        // An archive made in a home another one had replaced: kept apart, so the restored home does not
        // register over that newer home unless asked (§19.4), though the archive is younger than it.
        try db.execute("DELETE FROM settings WHERE name = ?", [SettingsRepository.Name.restoredFromReplacedHome])
        try db.execute("UPDATE settings SET name = ? WHERE name = ?",
                       [SettingsRepository.Name.restoredFromReplacedHome, SettingsRepository.Name.replacedAt])
        // (A link under way in the archived home is that home's to withdraw: `InterruptedLink`.)
        for name in [SettingsRepository.Name.registeredAt, SettingsRepository.Name.sessionToken, LinkInProgress.setting] {
            try db.execute("DELETE FROM settings WHERE name = ?", [name])
        }
        // (A linked device's home restored from a backup has no device key to register: it uses no relay at all.)
        try db.execute("""
            UPDATE settings SET value = ? WHERE name = ? AND value = 'registered'
                AND NOT EXISTS (SELECT 1 FROM settings WHERE name = ?)
            """, [SettingsRepository.Name.restoredRegistration, SettingsRepository.Name.registration, HushAccount.linkedDeviceSetting])
        try db.execute("INSERT OR REPLACE INTO settings(name, value) VALUES (?, ?)",
                       [HushAccount.restoredFromBackupSetting, String(createdAt)])
        return schedule
    }
}
