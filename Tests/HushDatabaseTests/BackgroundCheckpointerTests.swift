import HushTesting
import Testing
import HushCrypto
@testable import HushDatabase

@Suite struct BackgroundCheckpointerTests {
    /// Commits that each append to the log; returns how many rows the table has.
    private func commit(_ count: Int, to db: Database) throws {
        for index in 0..<count {
            try db.transaction { db in
                try db.execute("INSERT INTO t(v) VALUES (?)", [[UInt8](repeating: UInt8(index & 0xff), count: 3_000)])
            }
        }
    }

    private func open(_ dir: TemporaryDirectory, key: SecureBytes) throws -> Database {
        let db = try Database(path: dir.path("t.db"), key: key)
        try db.execute("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v BLOB NOT NULL)")
        return db
    }

    /// The second connection checkpoints while the writer commits; the log
    /// stays near the ceiling (the writer copies what is left there and the
    /// log starts again once no checkpoint holds it; on a loaded machine a
    /// few commits later) instead of growing with every commit, as it would
    /// with no checkpoint below 1,000 frames (SQLite's own threshold): these
    /// 600 commits write some 1,800 frames.
    @Test func checkpointsRunBesideTheWriterAndTheLogStaysShort() throws {
        let dir = try TemporaryDirectory()
        let key = SecureBytes(randomCount: 32)
        let db = try open(dir, key: key)
        let checkpointer = db.checkpointInBackground(key: key, threshold: 50, ceiling: 150)
        try commit(600, to: db)
        checkpointer.waitUntilIdle()
        let counts = checkpointer.counts
        #expect(counts.background >= 1)
        #expect(counts.longestLog < 900, "the log grew with every commit: \(counts)")
        // The log started again along the way: what it holds now is at most
        // what the last commits added below the threshold (which, as with
        // SQLite's own checkpoint, waits for the next one).
        try commit(1, to: db)
        #expect(checkpointer.counts.latestLog < 50 + 10, "\(checkpointer.counts)")
        // Everything is readable from another connection.
        let reader = try Database(path: dir.path("t.db"), key: key)
        #expect(try reader.queryFirst("SELECT count(*) FROM t") { try $0.get(0, as: Int.self) } == 601)
    }

    /// A checkpointer that cannot run (its queue held here) does not let the
    /// log grow without bound: at the ceiling the writer checkpoints itself.
    @Test func theWriterCheckpointsItselfAtTheCeiling() throws {
        let dir = try TemporaryDirectory()
        let key = SecureBytes(randomCount: 32)
        let db = try open(dir, key: key)
        let checkpointer = db.checkpointInBackground(key: key, threshold: 10, ceiling: 40)
        checkpointer.queue.suspend()
        try commit(200, to: db)
        let held = checkpointer.counts
        checkpointer.queue.resume()
        checkpointer.waitUntilIdle()
        #expect(held.inline >= 1)
        #expect(held.background == 0)
        #expect(held.longestLog < 100, "\(held)")
    }
}
