import CSQLCipher

/// The current row of a statement being stepped. Valid only inside the
/// closure it is handed to.
///
/// The accessors are inlinable so that callers in other modules get them
/// specialised for the concrete type: unspecialised, each column read went
/// through the Swift runtime's generic metadata cache (a lock and a hash
/// lookup), which was most of the cost of decoding a conversation list.
public struct Row {
    @usableFromInline let statement: Statement

    public var columnCount: Int { Int(sqlite3_column_count(statement.handle)) }

    @inlinable
    public func value(at index: Int) -> DatabaseValue {
        let handle = statement.handle
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            return .text(String(cString: sqlite3_column_text(handle, column)))
        default:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let base = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        }
    }

    /// The column at `index` as `T`; throws when the stored value does not
    /// convert (a NULL into a non-optional, text into an integer…).
    @inlinable
    public func get<T: DatabaseValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(DatabaseError) -> T {
        let value = value(at: index)
        guard let converted = T.fromDatabaseValue(value) else {
            throw mismatch(column: index, type: T.self)
        }
        return converted
    }

    @usableFromInline
    func mismatch(column index: Int, type: Any.Type) -> DatabaseError {
        DatabaseError(kind: .other, resultCode: SQLITE_MISMATCH, message: "column \(index) does not hold a \(type)", sql: statement.sql)
    }

    @inlinable
    public subscript<T: DatabaseValueConvertible>(_ index: Int) -> T {
        get throws(DatabaseError) { try get(index) }
    }
}
