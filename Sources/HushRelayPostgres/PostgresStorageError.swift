import PostgresNIO

/// Why the PostgreSQL driver could not do what was asked, in words an
/// operator can act on. Never carries a query's values.
public enum PostgresStorageError: Error, CustomStringConvertible {
    case newerSchema(found: Int, supported: Int)
    case unreachable(String)

    public var description: String {
        switch self {
        case let .newerSchema(found, supported):
            "the relay database has schema version \(found), newer than this relay understands (\(supported)): run a newer hush"
        case let .unreachable(url):
            "cannot reach PostgreSQL at \(url): check that the server runs, the URL's user and database exist, and the network allows it"
        }
    }
}

/// The SQLSTATE of a PostgreSQL error, also when a transaction wraps it.
func sqlState(of error: any Error) -> String? {
    if let error = error as? PSQLError { return error.serverInfo?[.sqlState] }
    if let error = error as? PostgresTransactionError {
        for inner in [error.closureError, error.commitError, error.beginError] {
            if let inner, let state = sqlState(of: inner) { return state }
        }
    }
    return nil
}

/// Errors after which running the same transaction again can succeed:
/// unique violation (a racing instance inserted first), serialization
/// failure, deadlock.
func isRetryable(_ error: any Error) -> Bool {
    ["23505", "40001", "40P01"].contains(sqlState(of: error) ?? "")
}
