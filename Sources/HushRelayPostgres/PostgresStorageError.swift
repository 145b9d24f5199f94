import HushRelay
import PostgresNIO

/// Why the PostgreSQL driver could not do what was asked, in words an
/// operator can act on. Never carries a query's values.
public enum PostgresStorageError: Error, CustomStringConvertible {
    case newerSchema(found: Int, supported: Int)
    case unreachable(String)
    case refusedLogin(String)
    case noDatabase(String)
    case failed(String, sqlState: String)

    /// What went wrong opening the database, by the server's SQLSTATE.
    init(connecting error: any Error, to url: PostgresURL) {
        if let error = error as? PSQLError, [.authMechanismRequiresPassword, .saslError].contains(error.code) {
            self = .refusedLogin(url.description)
            return
        }
        switch sqlState(of: error) {
        case "28P01"?, "28000"?: self = .refusedLogin(url.description)
        case "3D000"?: self = .noDatabase(url.description)
        case let state?: self = .failed(url.description, sqlState: state)
        case nil: self = .unreachable(url.description)
        }
    }

    public var description: String {
        switch self {
        case let .newerSchema(found, supported):
            "the relay database has schema version \(found), newer than this relay understands (\(supported)): run a newer hush"
        case let .unreachable(url):
            "cannot reach PostgreSQL at \(url): check that the server runs and that host, port and sslmode are right"
        case let .refusedLogin(url):
            "PostgreSQL refused the login for \(url): check the user, and give its password in $PGPASSWORD"
        case let .noDatabase(url):
            "the database in \(url) does not exist: create it (createdb -O USER NAME) and start the relay again"
        case let .failed(url, state):
            "PostgreSQL at \(url) failed while the relay prepared its tables (SQLSTATE \(state)): check that the user may create tables"
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

/// A failure as the log shows it: postgres-nio's error code, the SQLSTATE
/// and the server's message; never the query or its bind values (mailboxes,
/// token hashes, envelopes), nor the server's `detail` (it quotes key values).
struct PostgresFailure: CustomStringConvertible {
    let description: String

    init(_ error: any Error) {
        switch error {
        case let error as PSQLError:
            let state = error.serverInfo?[.sqlState].map { " SQLSTATE \($0)" } ?? ""
            let message = error.serverInfo?[.message].map { ": \($0)" } ?? ""
            description = "\(error.code)\(state)\(message)"
        case let error as PostgresTransactionError:
            let inner = error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError
            description = inner.map { "in a transaction: \(PostgresFailure($0))" } ?? "a transaction failed"
        case let error as RelayError:
            description = "\(error)"
        default:
            description = String(describing: type(of: error))
        }
    }
}
