import Foundation
import HushCrypto
import HushDatabase
import HushProtocol
import HushStore

/// Writes one archive (§19.3): the identity, the store's tables row by row
/// from one read snapshot, then the attachment files in chunks.
struct BackupCreation {
    let store: MessageStore
    let identity: IdentityKeyPair
    let identityCreatedAt: UInt64
    let recoveryKey: RecoveryKey
    let attachments: String

    /// Writes `hush-backup-DATE.hushbackup` into `destination`: first as a
    /// hidden temporary file, renamed once complete and synced.
    func write(into destination: String, now: Date = Date()) throws -> BackupSummary {
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let name = "hush-backup-\(formatter.string(from: now)).hushbackup"
        let path = destination + "/" + name
        let temporary = destination + "/." + name + "." + Hex.encode(SystemRandom().bytes(6)) + ".partial"
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]),
              let file = FileHandle(forWritingAtPath: temporary) else {
            throw HushError(.storage, reason: "could not create a file in \(destination)", suggestion: "check that the folder is writable")
        }
        var complete = false
        defer {
            try? file.close()
            if !complete { try? FileManager.default.removeItem(atPath: temporary) }
        }
        let createdAt = UInt64(now.timeIntervalSince1970 * 1000)
        let writer = try BackupWriter(file: file, identityKey: identity.publicKey.rawRepresentation,
                                      recoveryKey: recoveryKey, createdAt: createdAt)
        let counts = try BackupCreation.writeContents(writer, identity: identity, identityCreatedAt: identityCreatedAt,
                                                      database: store.database, attachments: attachments)
        try writer.finish()
        try file.synchronize()
        guard rename(temporary, path) == 0 else {
            throw HushError(.storage, reason: "could not rename the finished archive to \(path) (errno \(errno))")
        }
        complete = true
        return BackupSummary(path: path, address: identity.address.description,
                             createdAt: Date(timeIntervalSince1970: Double(createdAt) / 1000),
                             rowsByTable: counts.rows, files: counts.files, fileBytes: counts.fileBytes,
                             archiveBytes: writer.bytesWritten, scheduleNotRestored: nil)
    }

    /// The records after the header, in the order §19.3 gives. Shared with
    /// the vector generator, which writes a fixed archive.
    static func writeContents(_ writer: BackupWriter, identity: IdentityKeyPair, identityCreatedAt: UInt64,
                              database: Database, attachments: String?) throws -> (rows: [String: Int], files: Int, fileBytes: UInt64) {
        var record = BackupRecordBuilder()
        record.raw(identity.seed.copyBytes())
        record.u64(identityCreatedAt)
        var identityBody = record.bytes
        defer { ConstantTime.wipe(&identityBody) }
        try writer.append(.identity, identityBody)

        var rows: [String: Int] = [:]
        // One read transaction: every table from the same snapshot, while other processes write.
        try database.transaction(.deferred) { db in
            record = BackupRecordBuilder()
            record.u32(try db.schemaVersion())
            try writer.append(.database, record.bytes)
            let tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid") {
                try $0[0] as String
            }
            // Full-text indexes (virtual tables and their shadow tables) are derived: a restore rebuilds them.
            let indexes = try BackupCreation.virtualTables(db)
            for table in tables where !HushAccount.tablesLeftOutOfBackups.contains(table)
                && !indexes.contains(where: { table == $0 || table.hasPrefix($0 + "_") }) {
                let columns = try db.query("PRAGMA table_info(" + BackupCreation.quoted(table) + ")") { try $0[1] as String }
                record = BackupRecordBuilder()
                record.string(table)
                record.u16(columns.count)
                for column in columns { record.string(column) }
                try writer.append(.table, record.bytes)
                var count = 0
                let select = "SELECT " + columns.map(BackupCreation.quoted).joined(separator: ", ") + " FROM " + BackupCreation.quoted(table)
                _ = try db.prepare(select).query { row in
                    var values = BackupRecordBuilder()
                    for index in 0..<columns.count { BackupValue.encode(row.value(at: index), into: &values) }
                    try writer.append(.row, values.bytes)
                    count += 1
                }
                rows[table] = count
            }
        }

        var files = 0
        var fileBytes: UInt64 = 0
        if let attachments {
            for relative in try BackupCreation.files(under: attachments) {
                let path = attachments + "/" + relative
                guard let file = FileHandle(forReadingAtPath: path) else {
                    throw HushError(.storage, reason: "could not read the attachment file \(path)")
                }
                defer { try? file.close() }
                let size = try file.seekToEnd()
                try file.seek(toOffset: 0)
                record = BackupRecordBuilder()
                record.string(relative)
                record.u64(size)
                try writer.append(.file, record.bytes)
                var remaining = size
                while remaining > 0 {
                    let chunk = try file.read(upToCount: Int(min(remaining, UInt64(BackupArchive.fileChunkLength)))) ?? Data()
                    guard !chunk.isEmpty else { throw HushError(.storage, reason: "the attachment file \(path) shrank while it was backed up") }
                    try writer.append(.fileData, chunk)
                    remaining -= UInt64(chunk.count)
                }
                files += 1
                fileBytes += size
            }
        }
        return (rows, files, fileBytes)
    }

    /// Regular files under `directory`, as sorted relative paths; none when it is missing.
    static func files(under directory: String) throws -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var paths: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                paths.append(relative)
            }
        }
        return paths.sorted()
    }

    /// The store's virtual tables (its full-text index).
    static func virtualTables(_ db: Database) throws -> [String] {
        try db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'") { try $0[0] as String }
    }

    /// An SQL identifier in double quotes.
    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

/// One column value in a row record (§19.3): a type byte, then the value.
enum BackupValue {
    static func encode(_ value: DatabaseValue, into record: inout BackupRecordBuilder) {
        switch value {
        case .null: record.raw([0])
        case let .integer(integer): record.raw([1]); record.u64(UInt64(bitPattern: integer))
        case let .real(real): record.raw([2]); record.u64(real.bitPattern)
        case let .text(text): let utf8 = Array(text.utf8); record.raw([3]); record.u32(utf8.count); record.raw(utf8)
        case let .blob(blob): record.raw([4]); record.u32(blob.count); record.raw(blob)
        }
    }

    static func decode(from parser: inout BackupRecordParser) throws(HushError) -> DatabaseValue {
        switch try parser.u8() {
        case 0: return .null
        case 1: return .integer(Int64(bitPattern: try parser.u64()))
        case 2: return .real(Double(bitPattern: try parser.u64()))
        case 3:
            let count = try parser.u32()
            guard let text = String(validating: try parser.take(count), as: UTF8.self) else { throw BackupArchive.damaged("a text value is not UTF-8") }
            return .text(text)
        case 4: return .blob(Array(try parser.take(try parser.u32())))
        default: throw BackupArchive.damaged("a value has an unknown type")
        }
    }
}
