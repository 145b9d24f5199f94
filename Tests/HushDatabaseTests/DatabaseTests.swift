import HushTesting
import Testing
import HushCrypto
@testable import HushDatabase

@Suite struct DatabaseTests {
    @Test func bindsAndReadsEveryStorageClass() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("t.db"), key: SecureBytes(randomCount: 32))
        try db.execute("CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [Int64(-7), 2.5, "héllo", [UInt8]([0, 1, 255]), String?.none])
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [1, 0.0, "", [UInt8](), "x"])
        let rows = try db.query("SELECT i, r, s, b, n FROM t ORDER BY rowid") { row in
            (try row.get(0, as: Int64.self), try row.get(1, as: Double.self), try row.get(2, as: String.self),
             try row.get(3, as: [UInt8].self), try row.get(4, as: String?.self))
        }
        #expect(rows.count == 2)
        #expect(rows[0].0 == -7 && rows[0].1 == 2.5 && rows[0].2 == "héllo" && rows[0].3 == [0, 1, 255] && rows[0].4 == nil)
        #expect(rows[1].3 == [] && rows[1].4 == "x")
    }

    /// A bulk insert binds each parameter from bytes the caller holds
    /// (`execute(binding:)`): text of exactly its length (a NUL byte inside
    /// kept, as a String bound through its C form was not), empty text and
    /// blobs that stay text and blobs, not NULL; and the bindings are gone
    /// after the run, so the next run of the statement binds nothing stale.
    @Test func bindsBorrowedBytesInPlaceForOneRun() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("t.db"), key: SecureBytes(randomCount: 32))
        try db.execute("CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, e TEXT, z BLOB, n TEXT)")
        let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)")
        let text = Array("a\u{0}é".utf8), blob: [UInt8] = [0, 1, 255]
        try text.withUnsafeBytes { text in
            try blob.withUnsafeBytes { blob in
                try insert.execute { binder in
                    try binder.bind(Int64(-7), at: 1)
                    try binder.bind(2.5, at: 2)
                    try binder.bindText(text, at: 3)
                    try binder.bindBlob(blob, at: 4)
                    try binder.bindText(UnsafeRawBufferPointer(start: nil, count: 0), at: 5)
                    try binder.bindBlob(UnsafeRawBufferPointer(start: nil, count: 0), at: 6)
                    try binder.bindNull(at: 7)
                }
            }
        }
        try insert.execute { _ in }
        let rows = try db.query("SELECT i, r, typeof(s), length(CAST(s AS BLOB)), hex(s), b, typeof(e), typeof(z), typeof(n) FROM t ORDER BY rowid") { row in
            (try row.get(0, as: Int64?.self), try row.get(1, as: Double?.self), try row.get(2, as: String.self), try row.get(3, as: Int?.self),
             try row.get(4, as: String.self), try row.get(5, as: [UInt8]?.self), try row.get(6, as: String.self), try row.get(7, as: String.self),
             try row.get(8, as: String.self))
        }
        #expect(rows.count == 2)
        #expect(rows[0].0 == -7 && rows[0].1 == 2.5 && rows[0].2 == "text" && rows[0].3 == 4 && rows[0].4 == "6100C3A9")
        #expect(rows[0].5 == blob && rows[0].6 == "text" && rows[0].7 == "blob" && rows[0].8 == "null")
        #expect(rows[1].0 == nil && rows[1].1 == nil && rows[1].2 == "null" && rows[1].5 == nil && rows[1].6 == "null" && rows[1].7 == "null")
        // A failed binding (a parameter that does not exist) runs nothing and leaves the statement usable.
        #expect(throws: DatabaseError.self) { try insert.execute { binder in try binder.bindNull(at: 8) } }
        #expect(try db.queryFirst("SELECT count(*) FROM t") { try $0.get(0, as: Int.self) } == 2)
    }

    /// Every commit is synced to disk before it returns (WAL with synchronous
    /// = FULL, 2): the client acknowledges to the relay, and the relay answers
    /// 201, only after a commit, so one a power loss could undo would lose
    /// messages (SECURITY.md). A power loss cannot be simulated here; the
    /// setting each connection runs with can be read back.
    @Test func everyConnectionCommitsDurably() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("t.db"), key: SecureBytes(randomCount: 32))
        #expect(try db.queryFirst("PRAGMA journal_mode") { try $0.get(0, as: String.self) } == "wal")
        #expect(try db.queryFirst("PRAGMA synchronous") { try $0.get(0, as: Int64.self) } == 2)
    }

    /// A deferred transaction (a write that can be lost and made again) runs
    /// with `synchronous = NORMAL`; the connection is back to FULL after it,
    /// whether it committed or threw, and a nested one keeps the outer setting.
    @Test func aDeferredTransactionIsTheOnlyOneNotSynced() throws {
        struct Boom: Error {}
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("t.db"), key: SecureBytes(randomCount: 32))
        func synchronous() throws -> Int64? { try db.queryFirst("PRAGMA synchronous") { try $0.get(0, as: Int64.self) } }
        try db.execute("CREATE TABLE t(v INTEGER)")
        let inside = try db.transaction(durability: .deferred) { db in
            try db.execute("INSERT INTO t VALUES (?)", [1])
            return try synchronous()
        }
        #expect(inside == 1)
        #expect(try synchronous() == 2)
        #expect(throws: Boom.self) { try db.transaction(durability: .deferred) { _ in throw Boom() } }
        #expect(try synchronous() == 2)
        let nested = try db.transaction { db in try db.transaction(durability: .deferred) { _ in try synchronous() } }
        #expect(nested == 2)
        #expect(try db.queryFirst("SELECT count(*) FROM t") { try $0.get(0, as: Int.self) } == 1)
    }

    @Test func transactionRollsBackOnThrow() throws {
        struct Boom: Error {}
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("t.db"), key: SecureBytes(randomCount: 32))
        try db.execute("CREATE TABLE t(v INTEGER)")
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO t VALUES (?)", [1])
                throw Boom()
            }
        }
        #expect(try db.queryFirst("SELECT count(*) FROM t") { try $0.get(0, as: Int.self) } == 0)
        #expect(!db.isInTransaction)
    }

    @Test func argumentCountMismatchIsAnErrorWithoutValues() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("t.db"), key: SecureBytes(randomCount: 32))
        try db.execute("CREATE TABLE t(v TEXT)")
        #expect {
            try db.execute("INSERT INTO t VALUES (?)", ["secret-value", "another-secret"])
        } throws: { error in
            !String(describing: error).contains("secret")
        }
    }

    @Test func constraintErrorsCarryNoBoundValues() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("t.db"), key: SecureBytes(randomCount: 32))
        try db.execute("CREATE TABLE t(v TEXT UNIQUE)")
        try db.execute("INSERT INTO t VALUES (?)", ["secret-value"])
        #expect {
            try db.execute("INSERT INTO t VALUES (?)", ["secret-value"])
        } throws: { error in
            (error as? DatabaseError)?.kind == .constraint && !String(describing: error).contains("secret-value")
        }
    }

    @Test func migratorAppliesInOrderAndRefusesNewerSchemas() throws {
        let dir = try TemporaryDirectory()
        let key = SecureBytes(randomCount: 32)
        var migrator = Migrator()
        migrator.register(version: 1, name: "create") { try $0.execute("CREATE TABLE a(x)") }
        migrator.register(version: 2, name: "add") { try $0.execute("CREATE TABLE b(y)") }
        do {
            let db = try Database(path: dir.path("m.db"), key: key)
            try migrator.migrate(db, upTo: 1)
            #expect(try db.schemaVersion() == 1)
            try migrator.migrate(db)
            #expect(try db.schemaVersion() == 2)
            try db.execute("INSERT INTO b VALUES (1)")
        }
        var older = Migrator()
        older.register(version: 1, name: "create") { try $0.execute("CREATE TABLE a(x)") }
        let db = try Database(path: dir.path("m.db"), key: key)
        #expect {
            try older.migrate(db)
        } throws: { error in
            (error as? DatabaseError)?.kind == .newerSchema(found: 2, supported: 1)
        }
    }

    @Test func failingMigrationLeavesThePreviousVersion() throws {
        struct Boom: Error {}
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("m.db"), key: SecureBytes(randomCount: 32))
        var migrator = Migrator()
        migrator.register(version: 1, name: "create") { try $0.execute("CREATE TABLE a(x)") }
        migrator.register(version: 2, name: "broken") { db in
            try db.execute("CREATE TABLE b(y)")
            throw Boom()
        }
        #expect(throws: Boom.self) { try migrator.migrate(db) }
        #expect(try db.schemaVersion() == 1)
        #expect(try db.queryFirst("SELECT count(*) FROM sqlite_master WHERE name = 'b'") { try $0.get(0, as: Int.self) } == 0)
    }
}
