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
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve the relay API on HTTP and WebSocket.",
        discussion: """
        Settings come from the defaults, then --config FILE (YAML; `hush relay config --print-defaults` writes one with every \
        setting), then HUSH_RELAY_<KEY> variables (HUSH_RELAY_PORT, HUSH_RELAY_CONNECTIONS_IDLE_TIMEOUT, …), then these flags. \
        An unknown key, a wrong type or an impossible value is refused, naming the key, and the relay does not start.
        """)

    @Option(help: ArgumentHelp("A YAML configuration file with any of the relay's settings.", valueName: "FILE")) var config: String?
    @Option(help: "Address to listen on (default: 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (default: 8080).") var port: Int?
    @Option(help: ArgumentHelp("Another URL clients reach this relay by (repeatable), e.g. https://relay.example.org behind a TLS proxy: login signatures name the URL the client uses, and the relay accepts only these and http://HOST:PORT (on loopback also localhost and ::1).", valueName: "URL"))
    var origin: [String] = []
    @Option(help: "Data directory (database, blobs, and the key file unless --key-file); created when missing (default: relay-data).") var data: String?
    @Option(help: ArgumentHelp("The database key file, kept outside the data directory (also $HUSH_RELAY_KEY_FILE, or a systemd credential relay.key); created 0600 when missing.", valueName: "PATH"))
    var keyFile: String?
    @Option(help: ArgumentHelp("Use PostgreSQL instead of the embedded database, for several relay instances sharing it (also $HUSH_RELAY_DATABASE; put a password in $PGPASSWORD, not on the command line). Blobs stay in --data, which all instances must share.", valueName: "postgres://USER@HOST:PORT/DB"))
    var database: String?
    @Option(help: "Days an undelivered envelope or blob is kept (default: 30).") var retentionDays: Int?
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default: info).") var logLevel: String?
    @Option(help: "Seconds a new connection has to send its first request head (default: 10).") var requestHeadTimeout: Int?
    @Option(help: "Seconds a connection may stay silent between requests or body reads; WebSockets exempt (default: 30).") var idleTimeout: Int?
    @Option(help: "Open connections one client address may hold (default: 64).") var maxConnectionsPerAddress: Int?
    @Option(help: "Open connections in all; keep below the descriptor limit, `ulimit -n` (default: 4096).") var maxConnections: Int?
    @Option(help: "Zero bits of proof of work a first-contact deposit needs when its mailbox is quiet; 0 turns it off (default: 16).") var firstContactWorkBits: Int?
    @Option(help: "MiB of unexpired blobs one identity may store (default: 256).") var blobQuotaMib: Int?
    @Option(help: "Unexpired blobs one identity may store (default: 1000).") var blobQuotaCount: Int?
    @Option(help: ArgumentHelp("Serve https:// with this PEM certificate chain (with --tls-key).", valueName: "PATH")) var tlsCertificate: String?
    @Option(help: ArgumentHelp("The PEM private key for --tls-certificate.", valueName: "PATH")) var tlsKey: String?
    @Flag(help: "Serve https:// with a key and certificate made in the data directory on first start, and print the key's pin for relay URLs (https://HOST:PORT#pin=…).")
    var tlsSelfSigned = false
    @Option(help: ArgumentHelp("Serve Prometheus metrics on GET /metrics at this address, apart from the relay's (default: none).", valueName: "HOST:PORT"))
    var metrics: String?

    func validate() throws {
        try resolvedSettings().requireCoherent()
    }

    /// Defaults, then the file, then the variables, then the flags; the first
    /// bad value stops it with its key and source.
    func resolvedSettings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> RelaySettings {
        var settings = RelaySettings()
        do {
            if let config { try RelaySettingsFile.apply(contentsOf: config, to: &settings) }
            try settings.applyEnvironment(environment)
            let flags: [(String, String, RelaySettingValue?)] = [
                ("--host", "host", host.map(RelaySettingValue.string)),
                ("--port", "port", port.map(RelaySettingValue.int)),
                ("--origin", "origins", origin.isEmpty ? nil : .strings(origin)),
                ("--data", "data", data.map(RelaySettingValue.string)),
                ("--key-file", "key-file", keyFile.map(RelaySettingValue.string)),
                ("--database", "database", database.map(RelaySettingValue.string)),
                ("--retention-days", "retention-days", retentionDays.map(RelaySettingValue.int)),
                ("--log-level", "log-level", logLevel.map(RelaySettingValue.string)),
                ("--request-head-timeout", "connections.request-head-timeout", requestHeadTimeout.map(RelaySettingValue.int)),
                ("--idle-timeout", "connections.idle-timeout", idleTimeout.map(RelaySettingValue.int)),
                ("--max-connections-per-address", "connections.max-per-address", maxConnectionsPerAddress.map(RelaySettingValue.int)),
                ("--max-connections", "connections.max", maxConnections.map(RelaySettingValue.int)),
                ("--first-contact-work-bits", "rate-limits.first-contact-work-bits", firstContactWorkBits.map(RelaySettingValue.int)),
                ("--blob-quota-mib", "quotas.blob-mib", blobQuotaMib.map(RelaySettingValue.int)),
                ("--blob-quota-count", "quotas.blob-count", blobQuotaCount.map(RelaySettingValue.int)),
                ("--metrics", "metrics.listen", metrics.map(RelaySettingValue.string)),
                ("--tls-certificate", "tls.certificate", tlsCertificate.map(RelaySettingValue.string)),
                ("--tls-key", "tls.key", tlsKey.map(RelaySettingValue.string)),
                ("--tls-self-signed", "tls.self-signed", tlsSelfSigned ? .string("true") : nil),
            ]
            for (flag, key, value) in flags { if let value { try settings.set(key, value, from: flag) } }
        } catch {
            throw ValidationError("\(error)")
        }
        return settings
    }

    func run() async throws {
        do {
            try await serve()
        } catch let error as RelayDataDirectoryError {
            printError("the relay cannot run: \(error.description)")
            switch error {
            case .unsafe: throw ExitCode(ExitStatus.badPermissions.rawValue)
            case .inUse: throw ExitCode(ExitStatus.homeInUse.rawValue)
            case .incomplete: throw ExitCode(.failure)
            }
        } catch let RelayError.internalFailure(detail) {
            // Its data directory, key file or storage: what is wrong and what to do, not "internal failure".
            printError("the relay cannot run: \(detail)")
            throw ExitCode(.failure)
        }
    }

    private func serve() async throws {
        let environment = ProcessInfo.processInfo.environment
        let settings = try resolvedSettings(environment: environment)
        var logger = Logger(label: "hush.relay")
        logger.logLevel = Logger.Level(rawValue: settings.logLevel) ?? .info
        var configuration = settings.configuration
        configuration.keyFile = RelayDataDirectory.keyFile(option: settings.keyFile.isEmpty ? nil : settings.keyFile, environment: environment)
        configuration.metricsAddress = RelaySettings.hostAndPort(settings.metricsListen)
        let metrics = configuration.metricsAddress == nil ? RelayMetrics() : RelayMetrics.prometheus()
        let tlsMinimumVersion = RelayTLS.MinimumVersion(rawValue: settings.tlsMinimumVersion) ?? .tls12
        if settings.tlsSelfSigned {
            try RelayDataDirectory(path: configuration.dataDirectory, keyFile: configuration.keyFile).prepare(checkingOwner: settings.database.isEmpty)
            configuration.tls = try RelayTLS.selfSigned(in: configuration.dataDirectory, minimumVersion: tlsMinimumVersion)
        } else if !settings.tlsCertificate.isEmpty {
            configuration.tls = try RelayTLS(certificateFile: settings.tlsCertificate, keyFile: settings.tlsKey, minimumVersion: tlsMinimumVersion)
        }
        let relay: RelayServer
        if !settings.database.isEmpty {
            var url = try PostgresURL(settings.database)
            if url.password == nil { url.password = environment["PGPASSWORD"] }
            relay = try await RelayServer.onPostgres(url, configuration: configuration, logger: logger, metrics: metrics)
        } else {
            relay = try RelayServer.embedded(configuration: configuration, logger: logger, metrics: metrics)
        }
        // An IPv6 address goes in brackets in a URL (`http://[::1]:8080`), as clients must give it.
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let scheme = configuration.tls == nil ? "http" : "https"
        let pin = configuration.keyPin.map(RelayKeyPin.encode)
        try await relay.run { [core = relay.core] port in
            // Written straight to fd 1: stdout may be a pipe, where print() would buffer.
            FileHandle.standardOutput.write(Data("hush relay listening on \(scheme)://\(host):\(port)\n".utf8))
            if let pin {
                FileHandle.standardOutput.write(Data("hush relay key pin: \(pin) (clients use \(scheme)://\(host):\(port)#pin=\(pin))\n".utf8))
            }
            core.logger.info("login signatures must name one of these origins",
                             metadata: ["origins": "\(core.acceptedOrigins.map(\.description).joined(separator: " "))"])
        } onMetricsListening: { [metricsHost = configuration.metricsAddress?.host ?? ""] port in
            let host = metricsHost
            let shown = host.contains(":") ? "[\(host)]" : host
            FileHandle.standardOutput.write(Data("hush relay metrics on http://\(shown):\(port)/metrics\n".utf8))
        }
    }
}
