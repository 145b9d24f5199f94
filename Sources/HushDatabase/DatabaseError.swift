import CSQLCipher

/// An SQLite/SQLCipher failure. It carries the result code, SQLite's own
/// message and the SQL text (which holds `?` placeholders, never values);
/// bound values and keys are never part of an error.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The key is wrong, or the file is not a database (SQLCipher cannot
        /// tell the two apart, by design).
        case wrongKeyOrNotADatabase
        /// The library serving the calls is not SQLCipher.
        case notSQLCipher
        /// The database was written by a newer version of Hush.
        case newerSchema(found: Int, supported: Int)
        /// A UNIQUE, FOREIGN KEY, CHECK or NOT NULL constraint failed.
        case constraint
        /// The disk or the file system is full.
        case diskFull
        /// A read or write of the file failed (a file-size limit, a read-only
        /// or failing disk); SQLite rolled the transaction back.
        case ioFailure
        /// The database is locked by another process for longer than the busy timeout.
        case busy
        /// The file is damaged.
        case corrupt
        /// Any other SQLite error.
        case other
    }

    public let kind: Kind
    /// SQLite's primary result code (SQLITE_OK = 0 is never an error).
    public let resultCode: Int32
    /// SQLite's extended result code.
    public let extendedResultCode: Int32
    public let message: String
    public let sql: String?

    init(kind: Kind, resultCode: Int32 = SQLITE_ERROR, extendedResultCode: Int32? = nil, message: String, sql: String? = nil) {
        self.kind = kind
        self.resultCode = resultCode
        self.extendedResultCode = extendedResultCode ?? resultCode
        self.message = message
        self.sql = sql
    }

    /// Builds an error from the connection's current state after a failed call.
    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        let text = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        self.init(kind: DatabaseError.kind(for: code & 0xff), resultCode: code & 0xff,
                  extendedResultCode: extended, message: text, sql: sql)
    }

    static func kind(for primary: Int32) -> Kind {
        switch primary {
        case SQLITE_NOTADB: return .wrongKeyOrNotADatabase
        case SQLITE_CONSTRAINT: return .constraint
        case SQLITE_FULL: return .diskFull
        case SQLITE_IOERR: return .ioFailure
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy
        case SQLITE_CORRUPT: return .corrupt
        default: return .other
        }
    }

    public var description: String {
        switch kind {
        case .wrongKeyOrNotADatabase:
            return "the database cannot be opened: the key is wrong or the file is not a Hush database (restore it from a backup, or check that the keystore matches this data directory)"
        case .notSQLCipher:
            return "the database library in use is not SQLCipher, so the database would not be encrypted; refusing to continue (reinstall libsqlcipher and make sure plain libsqlite3 is not linked)"
        case let .newerSchema(found, supported):
            return "the database has schema version \(found) but this Hush supports up to \(supported): update Hush"
        case .diskFull:
            return "the disk is full: free some space and try again (nothing was written)"
        case .ioFailure:
            return "the database file could not be written or read (\(message)): the disk may be full, read-only or failing; free some space or check the disk, then try again (the failed change was not written)"
        case .busy:
            return "the database is in use by another Hush process: wait for it to finish and try again"
        case .corrupt:
            return "the database file is damaged (\(message)): restore it from a backup"
        case .constraint, .other:
            let statement = sql.map { " in `\($0)`" } ?? ""
            return "database error \(resultCode) (\(message))\(statement)"
        }
    }
}

extension DatabaseError {
    /// The storage itself failed (full, or an I/O error), as opposed to a
    /// bad request or a damaged file: worth retrying once there is room.
    public var isStorageFailure: Bool { kind == .diskFull || kind == .ioFailure }
}
