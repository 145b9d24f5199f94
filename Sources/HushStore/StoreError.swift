import HushDatabase

/// Errors of the message store beyond the database's own (`DatabaseError`).
/// No case carries message content or key material.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A row the caller named does not exist (a deleted message, say).
    case notFound(String)
    /// An argument outside what the store accepts.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case let .notFound(what): return "\(what) was not found in the local store"
        case let .invalidArgument(detail): return "invalid argument: \(detail)"
        }
    }
}
