import CSQLCipher
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto

/// One connection to an SQLCipher database file.
///
/// Opening a keyed database proves that SQLCipher serves the calls (a row
/// from `PRAGMA cipher_version`) and that the key is right (a read of the
/// schema), before anything else touches the file. A connection is not
/// shareable between threads: confine it to one actor or task at a time.
public final class Database {
    public static let keyLength = 32

    let handle: OpaquePointer
    public let path: String
    private var statementCache: [String: Statement] = [:]
    /// Set by `checkpointInBackground`; the WAL hook holds it unretained.
    public internal(set) var checkpointer: BackgroundCheckpointer?
    private var savepointDepth = 0
    /// How many savepoints this connection has opened (nested `transaction`
    /// calls): tests read it to show a hot path nests none.
    public private(set) var savepointsOpened = 0
    /// How many transactions committed with `Durability.deferred` (tests
    /// show which writes of a path skip the fsync).
    public private(set) var deferredCommits = 0
    /// A deferred commit was made that no synced commit has covered yet
    /// (see `syncDeferredCommits`).
    public private(set) var hasUnsyncedCommits = false
    /// What `afterCommit` queued in the open transaction, in order.
    private var afterCommitActions: [() -> Void] = []

    /// Opens (creating when missing) the database at `path`.
    ///
    /// - Parameter key: 32 random bytes used as SQLCipher's raw key (no
    ///   passphrase KDF). `nil` opens the file without encryption, which
    ///   only benchmarks use to show what encryption costs.
    ///
    /// - Parameter createIfMissing: `false` opens only an existing file (a
    ///   second connection to a database another one already holds).
    public init(path: String, key: SecureBytes?, busyTimeoutMilliseconds: Int32 = 5_000,
                createIfMissing: Bool = true) throws(DatabaseError) {
        if createIfMissing && path != ":memory:" {
            try OwnerOnlyFile.createIfMissing(path)
        }
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (createIfMissing ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = DatabaseError(code: code, connection: connection)
            sqlite3_close_v2(connection)
            throw error
        }
        self.handle = connection
        self.path = path
        do {
            try Database.applyKey(key, to: connection)
            try configure(encrypted: key != nil, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        } catch {
            // `self` is fully initialised here, so deinit closes the connection
            // (closing it here too would close a freed handle a second time).
            throw error
        }
    }

    deinit {
        statementCache.removeAll()
        if checkpointer != nil { sqlite3_wal_hook(handle, nil, nil) }
        sqlite3_close_v2(handle)
        // The checkpointer's connection closes after this one: the last to
        // close checkpoints the whole log, as SQLite does on close.
        if let checkpointer { checkpointer.waitUntilIdle() }
    }

    /// Passes the key as SQLCipher's raw-key literal `x'<64 hex digits>'`,
    /// built in wiped memory so the hex form never becomes a Swift string.
    private static func applyKey(_ key: SecureBytes?, to connection: OpaquePointer) throws(DatabaseError) {
        guard let key else { return }
        guard key.count == keyLength else {
            throw DatabaseError(kind: .other, resultCode: SQLITE_MISUSE, message: "database key must be \(keyLength) bytes")
        }
        let literal = SecureBytes(count: 3 + 2 * keyLength)
        let digits = Array("0123456789abcdef".utf8)
        literal.withUnsafeMutableBytes { out in
            key.withUnsafeBytes { raw in
                out[0] = UInt8(ascii: "x")
                out[1] = UInt8(ascii: "'")
                for (i, byte) in raw.enumerated() {
                    out[2 + 2 * i] = digits[Int(byte >> 4)]
                    out[3 + 2 * i] = digits[Int(byte & 0x0f)]
                }
                out[out.count - 1] = UInt8(ascii: "'")
            }
        }
        let code = literal.withUnsafeBytes { sqlite3_key(connection, $0.baseAddress, Int32($0.count)) }
        guard code == SQLITE_OK else { throw DatabaseError(code: code, connection: connection) }
    }

    private func configure(encrypted: Bool, busyTimeoutMilliseconds: Int32) throws(DatabaseError) {
        if encrypted {
            // Must precede the first read of the file.
            try execute("PRAGMA cipher_page_size = 4096")
        }
        // Only SQLCipher answers this pragma; plain SQLite returns no row.
        let version = try prepare("PRAGMA cipher_version").queryFirstValue(as: String.self)
        guard let version, !version.isEmpty else {
            throw DatabaseError(kind: .notSQLCipher, message: "PRAGMA cipher_version returned no row")
        }
        // Before the first read: another process of the same home may be
        // checkpointing or writing, and a read then waits instead of failing.
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        // The first real read: fails with SQLITE_NOTADB on a wrong key.
        _ = try prepare("SELECT count(*) FROM sqlite_master").queryFirstValue(as: Int64.self)
        _ = try prepare("PRAGMA journal_mode = WAL").queryFirstValue(as: String.self)
        try execute("PRAGMA foreign_keys = ON")
        // FULL: every commit is on the disk before it returns, so a power
        // loss cannot undo a commit that something else already relied on: a
        // message acknowledged to the relay (which then deletes it), a deposit
        // answered 201, or a ratchet step whose envelope already left (undone,
        // the chain would seal the next message under the same key). In WAL
        // mode that is one fsync of the log per transaction (0.2 ms here).
        try execute("PRAGMA synchronous = FULL")
    }

    /// The SQLCipher version serving this connection.
    public func cipherVersion() throws(DatabaseError) -> String {
        try prepare("PRAGMA cipher_version").queryFirstValue(as: String.self) ?? ""
    }

    // MARK: Statements

    /// Compiles `sql` into a new statement.
    public func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// A compiled statement for `sql`, reused across calls (hot paths).
    public func cached(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one or more statements without arguments (schema, pragmas).
    public func execute(_ sql: String) throws(DatabaseError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw DatabaseError(code: code, connection: handle, sql: sql) }
    }

    /// Runs one statement with arguments.
    public func execute(_ sql: String, _ arguments: [any DatabaseValueConvertible]) throws(DatabaseError) {
        try cached(sql).execute(arguments)
    }

    /// Runs a query and maps each row.
    public func query<T>(_ sql: String, _ arguments: [any DatabaseValueConvertible] = [], _ body: (Row) throws -> T) throws -> [T] {
        try cached(sql).query(arguments, body)
    }

    /// The first row of a query, mapped.
    public func queryFirst<T>(_ sql: String, _ arguments: [any DatabaseValueConvertible] = [], _ body: (Row) throws -> T) throws -> T? {
        try cached(sql).queryFirst(arguments, body)
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }

    // MARK: Transactions

    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// Whether a commit waits for the disk.
    public enum Durability: Sendable {
        /// The connection's `synchronous = FULL`: the log is fsynced before COMMIT returns.
        case synced
        /// `NORMAL` for this one transaction: the commit is atomic and survives
        /// a crash of the process, but a power loss may undo it until the next
        /// synced commit (which fsyncs the log, this commit's pages with it).
        /// Only for writes that can be lost and made again with no harm.
        case deferred
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back
    /// when it throws (the error is rethrown). Inside another transaction it
    /// becomes a savepoint, so repository calls compose into one batch (and
    /// `durability` is the outer transaction's).
    public func transaction<T>(_ kind: TransactionKind = .immediate, durability: Durability = .synced,
                               _ body: (Database) throws -> T) throws -> T {
        if isInTransaction {
            savepointDepth += 1
            savepointsOpened += 1
            let name = "hush_savepoint_\(savepointDepth)"
            defer { savepointDepth -= 1 }
            try execute("SAVEPOINT \(name)")
            let queuedBefore = afterCommitActions.count
            do {
                let result = try body(self)
                try execute("RELEASE SAVEPOINT \(name)")
                return result
            } catch {
                _ = sqlite3_exec(handle, "ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)", nil, nil, nil)
                // What the rolled-back part announced never happened.
                afterCommitActions.removeSubrange(queuedBefore...)
                throw error
            }
        }
        if durability == .deferred {
            try execute("PRAGMA synchronous = NORMAL")
        }
        defer { if durability == .deferred { _ = sqlite3_exec(handle, "PRAGMA synchronous = FULL", nil, nil, nil) } }
        let changesBefore = sqlite3_total_changes(handle)
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        do {
            let result = try body(self)
            try execute("COMMIT TRANSACTION")
            if durability == .deferred {
                deferredCommits += 1
                hasUnsyncedCommits = true
            } else if sqlite3_total_changes(handle) != changesBefore {
                // A synced commit that wrote something fsynced the log, and
                // with it every deferred commit before it.
                hasUnsyncedCommits = false
            }
            let actions = afterCommitActions
            afterCommitActions.removeAll()
            for action in actions { action() }
            return result
        } catch {
            // A failed COMMIT may already have rolled back; ignore that second error.
            _ = sqlite3_exec(handle, "ROLLBACK TRANSACTION", nil, nil, nil)
            afterCommitActions.removeAll()
            throw error
        }
    }

    /// Makes every deferred commit durable against a power loss, before
    /// something outside the database is told it is done (a relay told it
    /// may delete what was stored). A synced commit fsyncs the log, which
    /// holds the deferred commits before it; when none came since, this
    /// one writes the database header's `user_version` again, unchanged:
    /// the least a commit can log. Nothing happens when no deferred commit
    /// is left uncovered.
    public func syncDeferredCommits() throws {
        guard hasUnsyncedCommits else { return }
        try transaction(.immediate) { db in
            try db.execute("PRAGMA user_version = \(try db.schemaVersion())")
        }
        hasUnsyncedCommits = false
    }

    /// Runs `action` once the transaction now open has committed, and never
    /// when it (or the savepoint `action` was queued in) rolls back; at once
    /// when no transaction is open. For telling others about a change: an
    /// event published before the commit announces what a rollback may undo.
    public func afterCommit(_ action: @escaping () -> Void) {
        if isInTransaction { afterCommitActions.append(action) } else { action() }
    }

    /// Runs `body` in a transaction of its own, or directly inside the one
    /// already open, with no savepoint. For hot paths called once per row of
    /// a batch: a savepoint makes SQLite copy every page it then touches into
    /// the sub-journal (encrypted again by SQLCipher) and makes FTS4 flush
    /// its pending terms into a new segment. Inside a caller's transaction a
    /// throw leaves that transaction to be rolled back by the caller.
    public func withinTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        if isInTransaction { return try body(self) }
        return try transaction(.immediate, body)
    }

    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: Maintenance

    /// `PRAGMA integrity_check`: "ok", or the problems SQLite found.
    public func integrityCheck() throws -> [String] {
        try query("PRAGMA integrity_check") { row in try row.get(0, as: String.self) }
    }

    /// Moves the WAL into the main file and truncates the WAL.
    public func checkpoint() throws(DatabaseError) {
        try execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}

extension Statement {
    /// The first column of the first row, or nil when there is no row.
    public func queryFirstValue<T: DatabaseValueConvertible>(_ arguments: [any DatabaseValueConvertible] = [], as type: T.Type) throws(DatabaseError) -> T? {
        try bind(arguments)
        defer { reset() }
        guard try step() else { return nil }
        return try Row(statement: self).get(0, as: T.self)
    }
}
