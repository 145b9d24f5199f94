import Foundation
import HushTesting
import Testing
import HushCrypto
@testable import HushDatabase

@Suite struct EncryptionAtRestTests {
    let canary = "canary-7f3a9c-plaintext-must-not-appear"

    private func writeCanary(path: String, key: SecureBytes?) throws {
        let db = try Database(path: path, key: key)
        try db.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)")
        try db.transaction { db in
            for _ in 0..<50 { try db.execute("INSERT INTO notes(body) VALUES (?)", [canary]) }
        }
    }

    @Test func keyedFileHasNoHeaderAndNoCanaryAnywhere() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("messages.db")
        try writeCanary(path: path, key: SecureBytes(randomCount: 32))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(!bytes.starts(with: Array("SQLite format 3".utf8)))
        // The database, and any -wal/-shm beside it, hold no plaintext.
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.url.path) {
            let contents = try Data(contentsOf: dir.url.appendingPathComponent(file))
            #expect(contents.range(of: Data(canary.utf8)) == nil, "canary found in \(file)")
        }
    }

    @Test func unkeyedFileIsPlainSQLiteSoTheCheckAboveCanFail() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("plain.db")
        try writeCanary(path: path, key: nil)
        let db = try Database(path: path, key: nil)
        try db.checkpoint()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.starts(with: Array("SQLite format 3".utf8)))
        #expect(bytes.range(of: Data(canary.utf8)) != nil)
    }

    @Test func wrongKeyFailsClearly() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("messages.db")
        try writeCanary(path: path, key: SecureBytes(randomCount: 32))
        #expect {
            _ = try Database(path: path, key: SecureBytes(randomCount: 32))
        } throws: { error in
            (error as? DatabaseError)?.kind == .wrongKeyOrNotADatabase
        }
    }

    @Test func fileIsCreatedOwnerOnly() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("messages.db")
        try writeCanary(path: path, key: SecureBytes(randomCount: 32))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
        #expect(mode & 0o077 == 0)
    }

    @Test func sqlcipherCommandLineCannotReadWithoutTheKey() throws {
        guard SQLCipherCommandLine.isInstalled else {
            Issue.record("sqlcipher command line missing: run `make deps`")
            return
        }
        let dir = try TemporaryDirectory()
        let path = dir.path("messages.db")
        try writeCanary(path: path, key: SecureBytes(randomCount: 32))
        let (status, text) = try SQLCipherCommandLine.run([path, "SELECT body FROM notes LIMIT 1;"])
        #expect(status != 0)
        #expect(!text.contains(canary))
    }

    @Test func cipherVersionIsReported() throws {
        let dir = try TemporaryDirectory()
        let db = try Database(path: dir.path("v.db"), key: SecureBytes(randomCount: 32))
        #expect(try !db.cipherVersion().isEmpty)
        #expect(try db.integrityCheck() == ["ok"])
    }
}
