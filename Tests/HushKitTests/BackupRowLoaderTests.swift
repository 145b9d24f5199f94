import Foundation
import HushCrypto
import HushDatabase
@testable import HushKit
import HushStore
import Testing

/// The restore's loading thread (BackupRowLoader): rows handed over in
/// batches through a queue of one batch (so the reading thread waits on it,
/// and a failure meets a full queue) go in as one transaction that commits
/// only at `finish`; a bad row, a failure of the reading thread, or rows after
/// the files leave the store as it was, and no call waits forever.
@Suite struct BackupRowLoaderTests {
    /// 20,000 rows of about 60 bytes: five batches.
    static let rowCount = 20_000

    /// A new store with a table `t(i, s)`; remove `directory` when done.
    static func store() throws -> (directory: String, database: Database) {
        let directory = FileManager.default.temporaryDirectory.path + "/backup-rows-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try MessageStore(path: directory + "/messages.db", key: SecureBytes(randomCount: 32))
        try store.database.execute("CREATE TABLE t(i INTEGER, s TEXT)")
        return (directory, store.database)
    }

    static func row(_ index: Int) -> BackupRecordParser {
        var builder = BackupRecordBuilder()
        BackupValue.encode(.integer(Int64(index)), into: &builder)
        BackupValue.encode(.text("row \(index) " + String(repeating: "x", count: 40)), into: &builder)
        return BackupRecordParser(builder.bytes)
    }

    static func counts(_ db: Database) throws -> (rows: Int, restoredFrom: String?) {
        (try db.queryFirst("SELECT count(*) FROM t") { try $0.get(0, as: Int.self) } ?? -1,
         try db.queryFirst("SELECT value FROM settings WHERE name = ?", [HushAccount.restoredFromBackupSetting]) { try $0.get(0, as: String.self) })
    }

    @Test func everyRowGoesInAndCommitsAtTheEnd() throws {
        let (directory, db) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loader = BackupRowLoader(database: db, waitingBatches: 1)
        try loader.beginTable("t", columns: ["i", "s"])
        for index in 0..<Self.rowCount { try loader.appendRow(Self.row(index)) }
        try loader.endOfRows(createdAt: 1_234)
        #expect(try loader.finish(createdAt: 1_234) == nil)
        let after = try Self.counts(db)
        #expect(after.rows == Self.rowCount && after.restoredFrom == "1234")
        #expect(try db.queryFirst("SELECT s FROM t WHERE i = 19999") { try $0.get(0, as: String.self) }?.hasPrefix("row 19999 ") == true)
    }

    /// A row of an unknown type in the second batch: the reading thread is
    /// told (at a later hand-over or at `finish`), and nothing is kept.
    @Test func aBadRowMidwayKeepsNothing() throws {
        let (directory, db) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loader = BackupRowLoader(database: db, waitingBatches: 1)
        var failure: (any Error)?
        do {
            try loader.beginTable("t", columns: ["i", "s"])
            for index in 0..<Self.rowCount {
                if index == 5_000 {
                    var builder = BackupRecordBuilder()
                    builder.raw([9])
                    try loader.appendRow(BackupRecordParser(builder.bytes))
                } else {
                    try loader.appendRow(Self.row(index))
                }
            }
            _ = try loader.finish(createdAt: 1_234)
        } catch {
            failure = error
        }
        loader.abandon()
        #expect((failure as? HushError)?.kind == .damagedFile, "\(String(describing: failure))")
        let after = try Self.counts(db)
        #expect(after.rows == 0 && after.restoredFrom == nil)
    }

    /// The reading thread fails after handing over every row (a tampered
    /// record among the files): the rows handed over are rolled back.
    @Test func anAbandonedLoadKeepsNothing() throws {
        let (directory, db) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loader = BackupRowLoader(database: db, waitingBatches: 1)
        try loader.beginTable("t", columns: ["i", "s"])
        for index in 0..<Self.rowCount { try loader.appendRow(Self.row(index)) }
        try loader.endOfRows(createdAt: 1_234)
        loader.abandon()
        loader.abandon()
        let after = try Self.counts(db)
        #expect(after.rows == 0 && after.restoredFrom == nil)
    }

    /// A table that does not fit the store, and rows after the files, are damage.
    @Test func aTableThatDoesNotFitOrRowsAfterTheFilesAreDamage() throws {
        for order in ["unknown column", "after the files"] {
            let (directory, db) = try Self.store()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let loader = BackupRowLoader(database: db, waitingBatches: 1)
            let failure = #expect(throws: HushError.self, "\(order)") {
                try loader.beginTable("t", columns: order == "unknown column" ? ["i", "nope"] : ["i", "s"])
                try loader.appendRow(Self.row(1))
                if order == "after the files" {
                    try loader.endOfRows(createdAt: 1)
                    try loader.beginTable("t", columns: ["i", "s"])
                }
                _ = try loader.finish(createdAt: 1)
            }
            loader.abandon()
            #expect(failure?.kind == .damagedFile, "\(order): \(String(describing: failure))")
            #expect(try Self.counts(db).rows == 0, "\(order)")
        }
    }
}
