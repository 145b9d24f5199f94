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
    /// The format version written: 2; 1 only for tests that need an archive of the old format.
    var version: UInt16 = BackupArchive.version
    /// Whether attachment blobs go in the clear (`0x07`, version 2). Not for
    /// a device link's archive: the relay that carries its parts also stores
    /// the blobs, and would match them (PROTOCOL §20.6).
    var blobsInTheClear = true

    /// Makes sure `destination` is a folder archives can go in, created
    /// (owner only) when it does not exist; what stands in the way is said
    /// in words, not as a Foundation error.
    static func prepareFolder(_ destination: String) throws {
        guard !destination.isEmpty else {
            throw HushError(.invalidInput, reason: "no folder for the backup was given", suggestion: "name one with --to DIR")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw HushError(.invalidInput, reason: "\(destination) is a file, not a folder: archives go into a folder",
                                suggestion: "give a folder with --to (it is created when it does not exist)")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            let cause = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription ?? "it could not be created"
            throw HushError(.storage, reason: "could not create the folder \(destination) for the backup: \(cause)",
                            suggestion: "check the path and that its parent folder is writable, or give another with --to")
        }
    }

    /// Writes `hush-backup-DATE.hushbackup` into `destination`: first as a
    /// hidden temporary file, renamed once complete and synced.
    func write(into destination: String, now: Date = Date()) throws -> BackupSummary {
        try Self.prepareFolder(destination)
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
                                      recoveryKey: recoveryKey, createdAt: createdAt, version: version)
        // Before the file closes (defers run last to first): its sealing thread writes to it.
        defer { writer.abandon() }
        let counts = try BackupCreation.writeContents(writer, identity: identity, identityCreatedAt: identityCreatedAt,
                                                      database: store.database, attachments: attachments,
                                                      blobsInTheClear: blobsInTheClear && version >= 2)
        try writer.finish()
        try file.synchronize()
        guard rename(temporary, path) == 0 else {
            throw HushError(.storage, reason: "could not rename the finished archive to \(path) (errno \(errno))")
        }
        complete = true
        let replacedAt = (try? store.settings.value(SettingsRepository.Name.replacedAt)).flatMap { $0.flatMap(Int64.init) }
        return BackupSummary(path: path, address: identity.address.description,
                             createdAt: Date(timeIntervalSince1970: Double(createdAt) / 1000),
                             rowsByTable: counts.rows, files: counts.files, fileBytes: counts.fileBytes,
                             archiveBytes: writer.bytesWritten, scheduleNotRestored: nil,
                             madeInReplacedHome: replacedAt.map { Date(timeIntervalSince1970: Double($0) / 1000) })
    }

    /// The records after the header, in the order §19.3 gives. Shared with
    /// the vector generator, which writes a fixed archive.
    static func writeContents(_ writer: BackupWriter, identity: IdentityKeyPair, identityCreatedAt: UInt64,
                              database: Database, attachments: String?,
                              blobsInTheClear: Bool = true) throws -> (rows: [String: Int], files: Int, fileBytes: UInt64) {
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
                let inTheClear = blobsInTheClear && BackupArchive.carriesInTheClear(relative)
                var remaining = size
                while remaining > 0 {
                    let chunk = try file.read(upToCount: Int(min(remaining, UInt64(BackupArchive.fileChunkLength)))) ?? Data()
                    guard !chunk.isEmpty else { throw HushError(.storage, reason: "the attachment file \(path) shrank while it was backed up") }
                    try writer.appendFileData(chunk, inTheClear: inTheClear)
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

    /// Reads one row record's `columns` values (§19.3) in place, checking
    /// each (a known type, the lengths, text that is UTF-8) and that nothing
    /// follows them, and when `insert` is given binds them to it and runs it:
    /// a verify and a restore check exactly the same things, and an insert
    /// runs only for a record checked whole. Nothing is copied per value:
    /// text and blobs are bound from the record's bytes, which live until
    /// the insert has run. (Decoded first, each row cost a String or array
    /// per text and blob, an existential per value, and SQLite's own copy
    /// of every text and blob.)
    static func readRow(from parser: inout BackupRecordParser, columns: Int, into insert: Statement?) throws {
        try parser.readInPlace { bytes in
            var reader = BackupValueReader(bytes)
            if let insert {
                try insert.execute { binder in try reader.read(columns: columns, binder: binder) }
            } else {
                try reader.read(columns: columns, binder: nil)
            }
            return reader.offset
        }
        try parser.finish()
    }
}

/// The values of a row record, read from its bytes in place.
struct BackupValueReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func read(columns: Int, binder: StatementBinder?) throws {
        for column in 0..<columns {
            let index = Int32(column + 1)
            switch try take(1)[0] {
            case 0: try binder?.bindNull(at: index)
            case 1: let value = Int64(bitPattern: try u64()); try binder?.bind(value, at: index)
            case 2: let value = Double(bitPattern: try u64()); try binder?.bind(value, at: index)
            case 3:
                let text = try take(Int(try u32()))
                guard BackupValueReader.isUTF8(text) else { throw BackupArchive.damaged("a text value is not UTF-8") }
                try binder?.bindText(text, at: index)
            case 4:
                // Read apart from the binding: `binder?.` skips its arguments when verifying.
                let blob = try take(Int(try u32()))
                try binder?.bindBlob(blob, at: index)
            default: throw BackupArchive.damaged("a value has an unknown type")
            }
        }
        // Before the insert runs: it runs only for a record checked whole.
        guard offset == bytes.count else { throw BackupArchive.damaged("a record has bytes after its contents") }
    }

    private mutating func take(_ count: Int) throws(HushError) -> UnsafeRawBufferPointer {
        guard bytes.count - offset >= count else { throw BackupArchive.damaged("a record is shorter than its contents say") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    private mutating func u32() throws(HushError) -> UInt32 { UInt32(bigEndian: try take(4).loadUnaligned(as: UInt32.self)) }
    private mutating func u64() throws(HushError) -> UInt64 { UInt64(bigEndian: try take(8).loadUnaligned(as: UInt64.self)) }

    /// Whether `bytes` are UTF-8: ASCII is checked eight bytes at a time
    /// (most text is), anything else by the standard library's validator
    /// (which copies it into a String, so only for those values).
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index + 8 <= bytes.count {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return isUTF8Slowly(bytes) }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] >= 0x80 { return isUTF8Slowly(bytes) }
            index += 1
        }
        return true
    }

    private static func isUTF8Slowly(_ bytes: UnsafeRawBufferPointer) -> Bool {
        String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) != nil
    }
}
