import HushTesting
import Testing
@testable import HushDatabase

/// `afterCommit` runs what a transaction announces only once it is stored.
@Suite struct AfterCommitTests {
    struct Injected: Error {}

    @Test func actionsRunAfterTheCommitAndNeverAfterARollback() throws {
        let db = try Database(path: ":memory:", key: nil)
        try db.execute("CREATE TABLE t(x)")
        var ran: [String] = []
        try db.transaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            db.afterCommit { ran.append("committed") }
            #expect(ran.isEmpty, "ran inside the transaction")
        }
        #expect(ran == ["committed"])

        #expect(throws: Injected.self) {
            try db.transaction { db in
                db.afterCommit { ran.append("rolled back") }
                throw Injected()
            }
        }
        #expect(ran == ["committed"])

        // A savepoint that rolls back takes its own actions with it, not the outer ones.
        try db.transaction { db in
            db.afterCommit { ran.append("outer") }
            _ = try? db.transaction { db -> Void in
                db.afterCommit { ran.append("inner, rolled back") }
                throw Injected()
            }
            try db.transaction { db in db.afterCommit { ran.append("inner, kept") } }
        }
        #expect(ran == ["committed", "outer", "inner, kept"])

        // Outside a transaction: at once.
        db.afterCommit { ran.append("at once") }
        #expect(ran.last == "at once")
    }

    @Test func aFailedCommitRunsNothing() throws {
        let db = try Database(path: ":memory:", key: nil)
        try db.execute("PRAGMA foreign_keys = ON")
        try db.execute("CREATE TABLE parent(id INTEGER PRIMARY KEY)")
        try db.execute("CREATE TABLE child(parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)")
        var ran = false
        #expect(throws: DatabaseError.self) {
            try db.transaction { db in
                // A deferred foreign key is checked at COMMIT, which fails.
                try db.execute("INSERT INTO child VALUES (42)")
                db.afterCommit { ran = true }
            }
        }
        #expect(!ran)
    }
}
