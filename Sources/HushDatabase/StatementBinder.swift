import CSQLCipher

/// SQLITE_STATIC: SQLite uses bound bytes where they are, without a copy; they
/// must stay valid until the statement is reset.
@usableFromInline let staticDestructor = unsafeBitCast(OpaquePointer(bitPattern: 0), to: sqlite3_destructor_type.self)

/// Binds a statement's parameters one at a time, straight from bytes the
/// caller holds: for bulk inserts (a restore binds a hundred thousand rows
/// from its record bytes), where building a `DatabaseValue` per field cost a
/// fresh String or array and an existential per value, and SQLite copied
/// every text and blob once more.
///
/// Handed out only by `Statement.execute(binding:)`, which steps the
/// statement before it returns: bytes bound here must stay valid until then
/// (SQLite reads them in place).
public struct StatementBinder {
    @usableFromInline let statement: Statement

    init(statement: Statement) { self.statement = statement }

    /// Parameters are numbered from 1, as in SQLite.
    @inlinable public func bindNull(at index: Int32) throws(DatabaseError) {
        try check(sqlite3_bind_null(statement.handle, index))
    }

    @inlinable public func bind(_ value: Int64, at index: Int32) throws(DatabaseError) {
        try check(sqlite3_bind_int64(statement.handle, index, value))
    }

    @inlinable public func bind(_ value: Double, at index: Int32) throws(DatabaseError) {
        try check(sqlite3_bind_double(statement.handle, index, value))
    }

    /// Binds `utf8` as TEXT of exactly that many bytes (the caller has checked
    /// it is UTF-8), read in place.
    @inlinable public func bindText(_ utf8: UnsafeRawBufferPointer, at index: Int32) throws(DatabaseError) {
        // An empty text still needs a non-null pointer to stay text, not NULL.
        let base = utf8.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        try check(sqlite3_bind_text(statement.handle, index, base.assumingMemoryBound(to: CChar.self), Int32(utf8.count), staticDestructor))
    }

    /// Binds `bytes` as a BLOB, read in place.
    @inlinable public func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws(DatabaseError) {
        // A zero-length blob still needs a non-null pointer to stay a blob, not NULL.
        try check(sqlite3_bind_blob(statement.handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count),
                                    staticDestructor))
    }

    @inlinable func check(_ code: Int32) throws(DatabaseError) {
        guard code == SQLITE_OK else { throw statement.bindingError(code) }
    }
}

extension Statement {
    /// Runs the statement once, its parameters bound by `body` (a parameter
    /// it leaves unbound is NULL). The statement is reset and its bindings
    /// cleared before this returns, so the bytes `body` bound need only live
    /// until then.
    public func execute(binding body: (StatementBinder) throws -> Void) throws {
        defer { reset() }
        try body(StatementBinder(statement: self))
        while try step() {}
    }

    @usableFromInline func bindingError(_ code: Int32) -> DatabaseError {
        DatabaseError(code: code, connection: database.handle, sql: sql)
    }
}
