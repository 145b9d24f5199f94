import ArgumentParser
import Foundation
import HushRelay
import HushRelayAPI
import HushRelayPostgres
import Logging

/// `hush relay serve`: the relay on its embedded SQLCipher database, or on
/// PostgreSQL (`--database postgres://…`) for several instances. Prints `hush relay listening on http://HOST:PORT` once ready (tests and
/// the demo parse that line); stops gracefully on SIGINT/SIGTERM.
struct RelayServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve the relay API on HTTP and WebSocket.")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 8080
    @Option(help: ArgumentHelp("Another URL clients reach this relay by (repeatable), e.g. https://relay.example.org behind a TLS proxy: login signatures name the URL the client uses, and the relay accepts only these and http://HOST:PORT (on loopback also localhost and ::1).", valueName: "URL"))
    var origin: [String] = []
    @Option(help: "Data directory (database, blobs, and the key file unless --key-file); created when missing.") var data = "relay-data"
    @Option(help: ArgumentHelp("The database key file, kept outside the data directory (also $HUSH_RELAY_KEY_FILE, or a systemd credential relay.key); created 0600 when missing.", valueName: "PATH"))
    var keyFile: String?
    @Option(help: ArgumentHelp("Use PostgreSQL instead of the embedded database, for several relay instances sharing it (also $HUSH_RELAY_DATABASE; put a password in $PGPASSWORD, not on the command line). Blobs stay in --data, which all instances must share.", valueName: "postgres://USER@HOST:PORT/DB"))
    var database: String?
    @Option(help: "Days an undelivered envelope or blob is kept.") var retentionDays = 30
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.") var logLevel = "info"
    @Option(help: "Seconds a new connection has to send its first request head.") var requestHeadTimeout: Int64 = 10
    @Option(help: "Seconds a connection may stay silent between requests or body reads (WebSockets exempt).") var idleTimeout: Int64 = 30
    @Option(help: "Open connections one client address may hold.") var maxConnectionsPerAddress = 64
    @Option(help: "Open connections in all (keep below the descriptor limit, `ulimit -n`).") var maxConnections = 4_096
    @Option(help: "Zero bits of proof of work a first-contact deposit needs when its mailbox is quiet (0 turns it off).") var firstContactWorkBits = 16
    @Option(help: "MiB of unexpired blobs one identity may store.") var blobQuotaMib = 256
    @Option(help: "Unexpired blobs one identity may store.") var blobQuotaCount = 1_000

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        _ = try origins()
        if origin.isEmpty, ["0.0.0.0", "::", "[::]"].contains(host) {
            throw ValidationError("--host \(host) listens on every address, so the relay cannot tell which URL clients use to log in: add --origin http://NAME:PORT (or the https:// URL of your proxy)")
        }
        guard (1...3_650).contains(retentionDays) else { throw ValidationError("--retention-days must be 1…3650") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard (1...3_600).contains(requestHeadTimeout) else { throw ValidationError("--request-head-timeout must be 1…3600 seconds") }
        guard (1...3_600).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be 1…3600 seconds") }
        guard (1...1_000_000).contains(maxConnectionsPerAddress) else { throw ValidationError("--max-connections-per-address must be 1…1000000") }
        guard (1...1_000_000).contains(maxConnections) else { throw ValidationError("--max-connections must be 1…1000000") }
        guard (0...28).contains(firstContactWorkBits) else { throw ValidationError("--first-contact-work-bits must be 0…28") }
        guard (1...1_048_576).contains(blobQuotaMib) else { throw ValidationError("--blob-quota-mib must be 1…1048576") }
        guard (1...10_000_000).contains(blobQuotaCount) else { throw ValidationError("--blob-quota-count must be 1…10000000") }
    }

    func run() async throws {
        var logger = Logger(label: "hush.relay")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var configuration = RelayConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.origins = try origins()
        configuration.dataDirectory = data
        configuration.keyFile = RelayDataDirectory.keyFile(option: keyFile, environment: ProcessInfo.processInfo.environment)
        configuration.retentionSeconds = Int64(retentionDays) * 86_400
        configuration.connectionLimits.requestHeadTimeoutSeconds = requestHeadTimeout
        configuration.connectionLimits.idleTimeoutSeconds = idleTimeout
        configuration.connectionLimits.maxConnectionsPerAddress = maxConnectionsPerAddress
        configuration.connectionLimits.maxConnections = maxConnections
        configuration.blobQuota = BlobQuota(maxBytes: blobQuotaMib << 20, maxCount: blobQuotaCount)
        configuration.rateLimits.firstContactWorkBits = firstContactWorkBits
        let environment = ProcessInfo.processInfo.environment
        let relay: RelayServer
        if let database = database ?? environment["HUSH_RELAY_DATABASE"], !database.isEmpty {
            var url = try PostgresURL(database)
            if url.password == nil { url.password = environment["PGPASSWORD"] }
            relay = try await Self.onPostgres(url, configuration: configuration, logger: logger)
        } else {
            relay = try RelayServer.embedded(configuration: configuration, logger: logger)
        }
        let host = self.host
        try await relay.run { [core = relay.core] port in
            // Written straight to fd 1: stdout may be a pipe, where print() would buffer.
            FileHandle.standardOutput.write(Data("hush relay listening on http://\(host):\(port)\n".utf8))
            core.logger.info("login signatures must name one of these origins",
                             metadata: ["origins": "\(core.acceptedOrigins.map(\.description).joined(separator: " "))"])
        }
    }

    /// `--origin` values in canonical form; a bad one is named.
    func origins() throws -> [RelayOrigin] {
        try origin.map { url in
            do { return try RelayOrigin(url: url) } catch { throw ValidationError("--origin \(url): \(error)") }
        }
    }

    /// A relay instance on PostgreSQL: shared stores, pushes from the other
    /// instances through the deposit feed, blob bytes in the data directory.
    static func onPostgres(_ url: PostgresURL, configuration: RelayConfiguration, logger: Logger) async throws -> RelayServer {
        let directory = RelayDataDirectory(path: configuration.dataDirectory, keyFile: configuration.keyFile)
        try directory.prepare()
        let instance = PostgresRelayStorage.newInstanceID()
        let storage = try await PostgresRelayStorage(url: url, instance: instance, logger: logger)
        logger.info("relay storage on PostgreSQL", metadata: ["database": "\(url)", "instance": "\(instance)"])
        let core = RelayCore(configuration: configuration, storage: RelayStorage(storage, deposits: PostgresDepositFeed(storage: storage)),
                             blobs: BlobStore(directory: directory.blobDirectory), logger: logger)
        return RelayServer(core: core)
    }
}
