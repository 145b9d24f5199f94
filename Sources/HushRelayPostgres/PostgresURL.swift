import Foundation
import PostgresNIO

/// Where the relay's PostgreSQL database is, from a
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE]` URL.
/// `sslmode` is `disable` (the default on loopback hosts), `prefer`, or
/// `require` (the default elsewhere; the server's certificate is verified
/// against the system's trust store).
public struct PostgresURL: Sendable, CustomStringConvertible, CustomReflectable {
    public var host: String
    public var port: Int
    public var username: String
    /// Never printed (see `description`).
    public var password: String?
    public var database: String
    public var sslMode: SSLMode

    public enum SSLMode: String, Sendable { case disable, prefer, require }

    public init(_ text: String) throws(PostgresURLError) {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else { throw PostgresURLError("it must start with postgres://") }
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
            // Foundation refuses the whole URL for one bad part; a port that is not a number is the common one.
            throw PostgresURLError("it does not parse as postgres://USER@HOST[:PORT]/DATABASE (is the port a number?)")
        }
        guard let host = components.host, !host.isEmpty else { throw PostgresURLError("it names no host") }
        guard let user = components.user, !user.isEmpty else { throw PostgresURLError("it names no user (postgres://USER@HOST/DATABASE)") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw PostgresURLError("it names no database (postgres://USER@HOST/DATABASE)") }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw PostgresURLError("the port must be 1 to 65535") }
        self.host = host
        self.port = port
        // (`user` and `password` come percent-decoded already.)
        self.username = user
        self.password = components.password
        self.database = database
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        let mode = components.queryItems?.first { $0.name == "sslmode" }?.value
        guard let sslMode = mode.map(SSLMode.init(rawValue:)) ?? (loopback ? .disable : .require) else {
            throw PostgresURLError("sslmode must be disable, prefer or require")
        }
        self.sslMode = sslMode
    }

    /// The URL without its password.
    public var description: String {
        "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
    }

    /// What `dump` and debuggers show: the masked description, never the password field.
    public var customMirror: Mirror { Mirror(self, children: ["url": description]) }

    func tls() throws -> PostgresConnection.Configuration.TLS {
        switch sslMode {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    func clientConfiguration() -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch sslMode {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password,
                                                         database: database, tls: tls)
        configuration.options.additionalStartupParameters = Self.timeouts
        return configuration
    }

    /// A statement or an idle transaction that hangs (a half-open connection,
    /// a stuck lock) fails instead of holding every deposit behind it: the
    /// callers get 503 and retry.
    static let timeouts = [("statement_timeout", "15s"), ("idle_in_transaction_session_timeout", "30s")]

    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(host: host, port: port, username: username, password: password,
                                                             database: database, tls: try tls())
        configuration.options.additionalStartupParameters = Self.timeouts
        return configuration
    }
}

public struct PostgresURLError: Error, CustomStringConvertible {
    public let description: String
    init(_ reason: String) { description = "the PostgreSQL URL is not usable: \(reason)" }
}
