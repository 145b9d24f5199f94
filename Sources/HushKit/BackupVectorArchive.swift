import Foundation
import HushCrypto
import HushDatabase
import HushProtocol

/// Writes the archive of Vectors/protocol/backup.json with this module's own
/// writer, from fixed values: the salt and stream header a real archive draws
/// at random are given. Only the vector generator uses it (SPI).
@_spi(Vectors) public enum BackupVectorArchive {
    /// One table of the archive: its name, columns and rows. A value is
    /// `nil` (NULL), `Int64`, `Double`, `String` or `[UInt8]` (a blob).
    public struct Table {
        /// The table's name.
        public let name: String
        /// Its columns, in order.
        public let columns: [String]
        /// Its rows, each a value per column.
        public let rows: [[Any?]]

        /// A table of the vector archive.
        public init(name: String, columns: [String], rows: [[Any?]]) {
            self.name = name
            self.columns = columns
            self.rows = rows
        }
    }

    /// The written form (§19.1) of the recovery key `key` (32 bytes).
    public static func recoveryKeyText(_ key: [UInt8]) -> String {
        RecoveryKey(bytes: SecureBytes(copying: key)).displayText
    }

    /// The archive's bytes (docs/PROTOCOL.md §19.2–19.3) in format `version`,
    /// and each record's type and body before sealing (without the end
    /// record; a record carrying clear bytes lists them as its body).
    public static func bytes(identitySeed: [UInt8], identityCreatedAt: UInt64, recoveryKey: [UInt8], createdAt: UInt64,
                             salt: [UInt8], streamHeader: [UInt8], schemaVersion: Int, tables: [Table],
                             files: [(path: String, bytes: [UInt8])],
                             version: UInt16 = 2) throws -> (archive: [UInt8], records: [(type: UInt8, body: [UInt8])]) {
        let path = FileManager.default.temporaryDirectory.path + "/hush-backup-vector-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw HushError(.storage, reason: "could not create \(path)")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let identity = try IdentityKeyPair(seed: SecureBytes(copying: identitySeed))
        let writer = try BackupWriter(file: file, identityKey: identity.publicKey.rawRepresentation,
                                      recoveryKey: RecoveryKey(bytes: SecureBytes(copying: recoveryKey)), createdAt: createdAt,
                                      fixedSalt: salt, fixedStreamHeader: streamHeader, version: version)
        var written: [(type: UInt8, body: [UInt8])] = []
        func append(_ type: BackupArchive.RecordType, _ body: [UInt8]) throws {
            try writer.append(type, body)
            written.append((type.rawValue, body))
        }
        var record = BackupRecordBuilder()
        record.raw(identitySeed)
        record.u64(identityCreatedAt)
        try append(.identity, record.bytes)
        record = BackupRecordBuilder()
        record.u32(schemaVersion)
        try append(.database, record.bytes)
        for table in tables {
            record = BackupRecordBuilder()
            record.string(table.name)
            record.u16(table.columns.count)
            for column in table.columns { record.string(column) }
            try append(.table, record.bytes)
            for row in table.rows {
                record = BackupRecordBuilder()
                for value in row {
                    let converted: DatabaseValue = switch value {
                    case let integer as Int64: .integer(integer)
                    case let real as Double: .real(real)
                    case let text as String: .text(text)
                    case let blob as [UInt8]: .blob(blob)
                    default: .null
                    }
                    BackupValue.encode(converted, into: &record)
                }
                try append(.row, record.bytes)
            }
        }
        for (name, bytes) in files {
            record = BackupRecordBuilder()
            record.string(name)
            record.u64(UInt64(bytes.count))
            try append(.file, record.bytes)
            // From version 2 an attachment blob's bytes are carried in the clear: the
            // record's sealed body is then empty, and its listed body is the clear bytes.
            let inTheClear = version >= 2 && BackupArchive.carriesInTheClear(name)
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + BackupArchive.fileChunkLength, bytes.count)
                let chunk = Array(bytes[offset..<end])
                try writer.appendFileData(chunk, inTheClear: inTheClear)
                written.append(((inTheClear ? BackupArchive.RecordType.clearFileData : .fileData).rawValue, chunk))
                offset = end
            }
        }
        try writer.finish()
        try file.close()
        return (Array(try Data(contentsOf: URL(fileURLWithPath: path))), written)
    }
}
