#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushDatabase

/// Errors of the message store beyond the database's own (`DatabaseError`).
/// No case carries message content or key material.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A row the caller named does not exist (a deleted message, say).
    case notFound(String)
    /// An argument outside what the store accepts.
    case invalidArgument(String)
    /// The identity's database is gone or was replaced by an empty file.
    case databaseMissing(path: String, reason: MissingDatabase)
    /// A replay of the event log after `requestedAfter` was asked for, but
    /// the events through `prunedThrough` are gone: the caller reads the
    /// state again and resumes after `prunedThrough`.
    case eventsPruned(requestedAfter: Int64, prunedThrough: Int64)

    public enum MissingDatabase: Sendable, Equatable {
        case missing, empty
        case unreadable(errno: Int32)
    }

    public var description: String {
        switch self {
        case let .notFound(what): return "\(what) was not found in the local store"
        case let .invalidArgument(detail): return "invalid argument: \(detail)"
        case let .eventsPruned(requested, pruned):
            return "the events after \(requested) cannot be replayed: the log was pruned through event \(pruned). " +
                "Read the current state again, then resume after event \(pruned)."
        case let .databaseMissing(path, reason):
            let what = switch reason {
            case .missing: "is missing"
            case .empty: "is empty"
            case let .unreadable(code): "cannot be inspected (\(String(cString: strerror(code))))"
            }
            return "the message database \(path) \(what), but this identity created one: every session, contact and " +
                "message lives there. Restore messages.db from your backup into the data directory and try again; " +
                "nothing was registered, sent or fetched."
        }
    }
}
