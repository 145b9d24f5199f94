import Foundation
import HushCrypto
import HushDatabase
import HushKeystore
@testable import HushKit
import Testing

/// The recovery key's written form and the archive's checks (docs/PROTOCOL.md §19).
@Suite struct BackupFormatTests {
    /// The written form of the key 00 01 … 1f, computed independently (Python:
    /// Crockford base32 of the key and the first 3 bytes of its SHA-256).
    static let knownText = "000G-40R4-0M30-E209-185G-R38E-1W81-24GK-2GAH-C5RR-34D1-P70X-3RFP-63ED"

    @Test func theWrittenFormMatchesAnIndependentEncoding() throws {
        let key = RecoveryKey(bytes: SecureBytes(copying: Array(0..<32) as [UInt8]))
        #expect(key.displayText == Self.knownText)
        #expect(try RecoveryKey(parsing: Self.knownText).bytes == key.bytes)
        #expect("\(key)" == "RecoveryKey(redacted)")
    }

    @Test func readingIgnoresCaseSpacesAndDashesAndTakesLookalikes() throws {
        let relaxed = Self.knownText.lowercased().replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "0", with: "o")
            .replacingOccurrences(of: "1", with: "l")
        #expect(try RecoveryKey(parsing: relaxed).displayText == Self.knownText)
    }

    @Test func everySingleCharacterTypoIsCaught() {
        let text = Array(Self.knownText)
        for index in text.indices where text[index] != "-" {
            var typo = text
            typo[index] = text[index] == "Z" ? "Y" : "Z"
            #expect(throws: HushError.self) { try RecoveryKey(parsing: String(typo)) }
        }
        #expect(throws: HushError.self) { try RecoveryKey(parsing: String(text.dropLast())) }
        #expect(throws: HushError.self) { try RecoveryKey(parsing: Self.knownText + "0") }
        #expect(throws: HushError.self) { try RecoveryKey(parsing: Self.knownText.replacingOccurrences(of: "G", with: "U")) }
    }

    @Test func aGeneratedKeyReadsBack() throws {
        for _ in 0..<20 {
            let key = RecoveryKey.generate()
            #expect(try RecoveryKey(parsing: key.displayText).bytes == key.bytes)
        }
    }

    /// An archive written with one key is refused with another, and its
    /// records, once written, are read back in order up to the end record.
    @Test func anArchiveReadsBackOnlyWithItsKeyAndInFull() throws {
        let (directory, path, key) = try Self.archive { writer in
            try writer.append(.table, [1, 2, 3])
            try writer.append(.row, [4])
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let reader = try BackupReader(path: path, recoveryKey: key)
        #expect(reader.header.createdAt == 1_000)
        #expect(try reader.next()?.type == .table)
        #expect(try reader.next().map { Array($0.body.rest) } == [4])
        #expect(try reader.next() == nil)
        #expect(throws: HushError.self) { try BackupReader(path: path, recoveryKey: RecoveryKey.generate()) }

        // Without its end record the archive is cut short.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let endLength = SecretStream.overhead + 1 + 8 + BackupArchive.frameLength(version: BackupArchive.version)
        try bytes.dropLast(endLength).write(to: URL(fileURLWithPath: path))
        let cut = try BackupReader(path: path, recoveryKey: key)
        _ = try cut.next()
        _ = try cut.next()
        #expect(throws: HushError.self) { try cut.next() }
    }

    /// Records are sealed and written on the writer's own thread: a write that
    /// fails there (a full disk: /dev/full) reaches the caller at a later
    /// append or at `finish`, and nothing waits forever; a writer dropped
    /// unfinished writes no end record, and its size counts what it holds.
    @Test func aFailedWriteReachesTheCallerAndAnUnfinishedArchiveHasNoEnd() throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? full.close() }
        let writer = try BackupWriter(file: full, identityKey: Array(repeating: 7, count: 32), recoveryKey: RecoveryKey.generate(), createdAt: 1)
        #expect(throws: (any Error).self) {
            for _ in 0..<200 { try writer.append(.fileData, [UInt8](repeating: 1, count: BackupArchive.fileChunkLength)) }
            try writer.finish()
        }
        writer.abandon()

        var expected = 0
        let (directory, path, key) = try Self.archive { writer in
            for size in [0, 1, 300, BackupArchive.fileChunkLength] {
                try writer.append(.fileData, [UInt8](repeating: 2, count: size))
                expected = Int(writer.bytesWritten)
            }
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let endLength = BackupArchive.frameLength(version: BackupArchive.version) + 1 + 8 + SecretStream.overhead
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == expected + endLength)
        let unfinished = directory + "/unfinished"
        FileManager.default.createFile(atPath: unfinished, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: unfinished))
        do {
            let dropped = try BackupWriter(file: handle, identityKey: Array(repeating: 7, count: 32), recoveryKey: key, createdAt: 1)
            try dropped.append(.table, [1])
        }
        try handle.close()
        #expect(throws: HushError.self, "refused, whether cut in its header or after a record") {
            let reader = try BackupReader(path: unfinished, recoveryKey: key)
            while try reader.next() != nil {}
        }
    }

    /// The reader hands out records from one read buffer (`BlockReader`, a
    /// quarter of a MiB) and opens them into one reused plaintext buffer:
    /// records that straddle two reads, fill several, or are larger than the
    /// buffer come back byte for byte, in order, each body whole while it is
    /// read; an archive cut inside a large record is damage, not a crash.
    @Test func recordsOfEverySizeReadBackAcrossTheReadBuffer() throws {
        let block = BlockReader.blockLength
        let sizes = [0, 1, 100, block - 30, block, block + 1, 65_536, 3 * block + 7, 17, BackupArchive.maximumSealedLength - SecretStream.overhead - 1,
                     5, 65_536, 65_536, 65_536, 65_536, 65_536, 2]
        let bodies = sizes.enumerated().map { index, size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) } }
        let (directory, path, key) = try Self.archive { writer in
            for body in bodies { try writer.append(.fileData, body) }
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let reader = try BackupReader(path: path, recoveryKey: key)
        for (index, body) in bodies.enumerated() {
            let record = try #require(try reader.next())
            #expect(record.type == .fileData && Array(record.body.rest) == body, "record \(index) of \(body.count) bytes")
        }
        #expect(try reader.next() == nil)

        // Cut in the middle of the largest record.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let frame = BackupArchive.frameLength(version: BackupArchive.version)
        let largest = BackupArchive.headerLength + sizes.prefix(9).reduce(0) { $0 + frame + SecretStream.overhead + 1 + $1 } + frame + 1_000
        try bytes.prefix(largest).write(to: URL(fileURLWithPath: path))
        let cut = try BackupReader(path: path, recoveryKey: key)
        for _ in 0..<9 { _ = try cut.next() }
        #expect(throws: HushError.self) { try cut.next() }
    }

    /// A row record's values (§19.3) are checked whole, then bound from the
    /// record's bytes and inserted: text of exactly its length (a NUL byte
    /// inside kept), empty text and blobs not NULL. A value of an unknown
    /// type, one cut short, text that is not UTF-8 (after eight ASCII bytes
    /// too, past the fast check) or bytes after the last value are damage
    /// and insert nothing; verifying (no insert) refuses the same records.
    @Test func aRowIsCheckedWholeThenInsertedFromItsBytes() throws {
        let directory = FileManager.default.temporaryDirectory.path + "/backup-row-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let db = try Database(path: directory + "/t.db", key: SecureBytes(randomCount: 32))
        try db.execute("CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        let insert = try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        func record(_ values: [DatabaseValue], then extra: [UInt8] = []) -> [UInt8] {
            var builder = BackupRecordBuilder()
            for value in values { BackupValue.encode(value, into: &builder) }
            builder.raw(extra)
            return builder.bytes
        }
        func restore(_ bytes: [UInt8], into insert: Statement?) throws {
            var parser = BackupRecordParser(bytes)
            try BackupValue.readRow(from: &parser, columns: 5, into: insert)
        }

        let good = record([.integer(-3), .real(0.5), .text("a\u{0}b, héllo wörld"), .blob([]), .null])
        try restore(good, into: nil)
        try restore(good, into: insert)
        let stored = try db.query("SELECT i, r, length(CAST(s AS BLOB)), hex(s), typeof(b), typeof(n) FROM t") { row in
            [try row.get(0, as: Int64.self).description, try row.get(1, as: Double.self).description, try row.get(2, as: Int.self).description,
             try row.get(3, as: String.self), try row.get(4, as: String.self), try row.get(5, as: String.self)]
        }
        #expect(stored == [["-3", "0.5", "\(Array("a\u{0}b, héllo wörld".utf8).count)", Hex.encode(Array("a\u{0}b, héllo wörld".utf8)).uppercased(), "blob", "null"]])

        let fine: [DatabaseValue] = [.integer(1), .real(1), .text("x"), .blob([1]), .null]
        var unknownType = record(fine); unknownType[unknownType.count - 1] = 5
        let cut = Array(record(fine).dropLast(2))
        let notUTF8 = record([.integer(1), .real(1), .text("x"), .blob([1])]) + [3, 0, 0, 0, 10] + Array("abcdefgh".utf8) + [0xC3, 0x28]
        let lone = record([.integer(1), .real(1), .text("x"), .blob([1])]) + [3, 0, 0, 0, 1, 0xFF]
        let extra = record(fine, then: [0])
        for (name, bytes) in [("unknown type", unknownType), ("cut short", cut), ("not UTF-8 after ASCII", notUTF8),
                              ("not UTF-8", lone), ("bytes after", extra)] {
            #expect(throws: HushError.self, "\(name), verifying") { try restore(bytes, into: nil) }
            #expect(throws: HushError.self, "\(name), restoring") { try restore(bytes, into: insert) }
        }
        #expect(try db.queryFirst("SELECT count(*) FROM t") { try $0.get(0, as: Int.self) } == 1)
    }
}

/// Where the recovery key lives: the keystore, as an additional entry that a
/// keystore written before recovery keys simply lacks.
@Suite struct RecoveryKeyStorageTests {
    @Test func aNewAccountHasARecoveryKeyAndAnOlderKeystoreGetsOneOnDemand() async throws {
        let directory = try RelayProcess.temporaryDirectory("recovery-key").appendingPathComponent("home").path
        let created = try await HushAccount.create(in: directory, keys: App.keys)
        let made = try #require(created.recoveryKey?.displayText)
        created.close()
        let shown = try await HushAccount.recoveryKey(in: directory, keys: App.keys)
        #expect(shown.key.displayText == made && !shown.isNew)

        // A keystore of the version before recovery keys: the same format, without entry 0x100.
        let older = try RelayProcess.temporaryDirectory("older-keystore").appendingPathComponent("home").path
        let contents = KeystoreContents.generate(createdAt: 1_700_000_000)
        try KeystoreFile(directory: DataDirectory(path: older)).create(contents, passphrase: SecureBytes(copying: Array(App.passphrase.utf8)),
                                                                        cost: .interactive)
        let first = try await HushAccount.recoveryKey(in: older, keys: App.keys)
        #expect(first.isNew)
        let again = try await HushAccount.recoveryKey(in: older, keys: App.keys)
        #expect(!again.isNew && again.key.displayText == first.key.displayText)
        let reopened = try KeystoreFile(directory: DataDirectory(path: older)).unlock(passphrase: SecureBytes(copying: Array(App.passphrase.utf8)))
        #expect(reopened.identitySeed == contents.identitySeed && reopened.databaseKey == contents.databaseKey)
        #expect(try KeystoreFile(directory: DataDirectory(path: older)).header().cost == .interactive, "the cost stays as it was")
    }
}

extension BackupFormatTests {
    /// An archive of the records `write` appends (identity key 07…07, made at
    /// 1,000), under a new random key, in a folder of its own: remove
    /// `directory` when done.
    static func archive(_ write: (BackupWriter) throws -> Void) throws -> (directory: String, path: String, key: RecoveryKey) {
        let directory = FileManager.default.temporaryDirectory.path + "/backup-format-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/archive"
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let key = RecoveryKey.generate()
        let writer = try BackupWriter(file: handle, identityKey: Array(repeating: 7, count: 32), recoveryKey: key, createdAt: 1_000)
        try write(writer)
        try writer.finish()
        try handle.close()
        return (directory, path, key)
    }
}
