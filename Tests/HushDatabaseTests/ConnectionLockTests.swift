import Foundation
import Glibc
import HushCrypto
import HushTesting
import Testing
@testable import HushDatabase

/// SQLite's locks are POSIX record locks, which belong to a process and an
/// inode: closing any descriptor of the database file drops every lock the
/// process holds on it. Opening a connection must never do that, or another
/// process closing its own connection believes it is the last one and
/// deletes the log under this one (issue 29, item 1).
@Suite struct ConnectionLockTests {
    /// Opens `path` in another process, reads `table`'s row count and closes.
    static func countInAnotherProcess(_ path: String, table: String) throws -> String {
        try SQLCipherCommandLine.run([path, "SELECT count(*) FROM \(table);"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aSecondConnectionLeavesTheFirstOnesLocksInPlace() throws {
        guard SQLCipherCommandLine.isInstalled else {
            Issue.record("sqlcipher command line missing: run `make deps`")
            return
        }
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.db")
        // Plain SQLite (no key), so the other process needs no key on its command line.
        let first = try Database(path: path, key: nil)
        try first.execute("CREATE TABLE t(x)")
        try first.execute("INSERT INTO t VALUES (1)")
        // What the background checkpointer does once the log passes its threshold.
        let second = try Database(path: path, key: nil, createIfMissing: false)
        #expect(try second.prepare("SELECT count(*) FROM t").queryFirstValue(as: Int64.self) == 1)

        #expect(try Self.countInAnotherProcess(path, table: "t") == "1")
        #expect(access(path + "-wal", F_OK) == 0, "another process's close deleted the log under two open connections")
        #expect(access(path + "-shm", F_OK) == 0)

        // Both connections still share one database with the other process.
        try first.execute("INSERT INTO t VALUES (2)")
        #expect(try second.prepare("SELECT count(*) FROM t").queryFirstValue(as: Int64.self) == 2)
        #expect(try Self.countInAnotherProcess(path, table: "t") == "2")
        withExtendedLifetime((first, second)) {}
    }

    @Test func aNewDatabaseIsOwnerOnlyAndLeavesNoOtherFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.db")
        let database = try Database(path: path, key: SecureBytes(randomCount: 32))
        try database.execute("CREATE TABLE t(x)")
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
            #expect(["new.db", "new.db-wal", "new.db-shm"].contains(file), "left behind: \(file)")
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.path(file))
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
            #expect(mode & 0o077 == 0, "\(file) has mode \(String(mode, radix: 8))")
        }
    }

    @Test func aSecondConnectionDoesNotCreateAMissingDatabase() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("gone.db")
        #expect(throws: DatabaseError.self) { try Database(path: path, key: nil, createIfMissing: false) }
        #expect(access(path, F_OK) != 0)
    }
}
