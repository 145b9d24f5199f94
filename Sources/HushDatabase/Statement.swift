import CSQLCipher

/// SQLITE_TRANSIENT: SQLite copies bound bytes before the call returns.
let transientDestructor = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// A prepared statement. Bind arguments with `execute`/`query`; the statement
/// is reset and its bindings cleared after each use, so cached statements can
/// be reused safely.
public final class Statement {
    @usableFromInline let handle: OpaquePointer
    unowned let database: Database
    public let sql: String

    init(database: Database, sql: String) throws(DatabaseError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw DatabaseError(code: code, connection: database.handle, sql: sql)
        }
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Runs the statement to completion with `arguments`.
    public func execute(_ arguments: [any DatabaseValueConvertible] = []) throws(DatabaseError) {
        try bind(arguments)
        defer { reset() }
        while try step() {}
    }

    /// Runs the statement and maps each result row through `body`.
    public func query<T>(_ arguments: [any DatabaseValueConvertible] = [], _ body: (Row) throws -> T) throws -> [T] {
        try bind(arguments)
        defer { reset() }
        var results: [T] = []
        let row = Row(statement: self)
        while try step() {
            results.append(try body(row))
        }
        return results
    }

    /// The first row mapped through `body`, or nil when there is none.
    public func queryFirst<T>(_ arguments: [any DatabaseValueConvertible] = [], _ body: (Row) throws -> T) throws -> T? {
        try bind(arguments)
        defer { reset() }
        guard try step() else { return nil }
        return try body(Row(statement: self))
    }

    func bind(_ arguments: [any DatabaseValueConvertible]) throws(DatabaseError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard arguments.count == expected else {
            throw DatabaseError(kind: .other, resultCode: SQLITE_RANGE,
                                message: "\(arguments.count) arguments for \(expected) parameters", sql: sql)
        }
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument.databaseValue {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case let .integer(value):
                code = sqlite3_bind_int64(handle, index, value)
            case let .real(value):
                code = sqlite3_bind_double(handle, index, value)
            case let .text(value):
                code = sqlite3_bind_text(handle, index, value, -1, transientDestructor)
            case let .blob(value):
                code = value.withUnsafeBytes { bytes in
                    // A zero-length blob still needs a non-null pointer to stay a blob, not NULL.
                    sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), transientDestructor)
                }
            }
            guard code == SQLITE_OK else { throw DatabaseError(code: code, connection: database.handle, sql: sql) }
        }
    }

    /// Advances one row; false when done.
    func step() throws(DatabaseError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw DatabaseError(code: code, connection: database.handle, sql: sql)
        }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}
