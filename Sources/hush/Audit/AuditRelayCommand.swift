import ArgumentParser
import Foundation
import HushAudit
import HushRelay
import HushRelayPostgres
import Logging

/// `hush audit relay --data DIR [--database URL] [--canary TEXT] [--json]`:
/// every item a relay stores (in its data directory, or on PostgreSQL), with
/// the fields the relay keeps, and optionally a scan of every file of the
/// data directory for a known plaintext.
struct AuditRelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "relay", abstract: "Print everything a relay's data directory holds.")

    @Option(help: "The relay's data directory.") var data: String
    @Option(help: "The relay's key file, when it is not DIR/relay.key (also $HUSH_RELAY_KEY_FILE).") var keyFile: String?
    @Option(help: ArgumentHelp("The relay's PostgreSQL database, for relays run with --database (also $HUSH_RELAY_DATABASE; password in $PGPASSWORD).", valueName: "postgres://USER@HOST:PORT/DB"))
    var database: String?
    @Option(help: "A plaintext to look for in every file, in UTF-8, UTF-16, hex and base64.") var canary: String?
    @Flag(help: "Print JSON instead of text.") var json = false

    func validate() throws {
        if let canary, canary.utf8.count < 4 { throw ValidationError("--canary needs at least 4 bytes to be meaningful") }
    }

    func run() async throws {
        // The files are read before this process opens relay.db: closing a
        // descriptor of it in a process holding a connection drops that
        // connection's locks, and a live relay could lose its log.
        let scan = try canary.map { try CanaryScanner.scan(directory: data, canary: $0) }
        let inventory: RelayInventory
        let environment = ProcessInfo.processInfo.environment
        if let database = database ?? environment["HUSH_RELAY_DATABASE"], !database.isEmpty {
            var url = try PostgresURL(database)
            if url.password == nil { url.password = environment["PGPASSWORD"] }
            var logger = Logger(label: "hush.audit")
            logger.logLevel = .critical
            let storage = try await PostgresRelayStorage(url: url, instance: "audit", maxConnections: 1, logger: logger)
            defer { storage.close() }
            inventory = try await storage.inventory()
        } else {
            do {
                inventory = try await RelayAudit.inventory(
                    dataDirectory: data, keyFile: RelayDataDirectory.keyFile(option: keyFile, environment: environment))
            } catch {
                // Not a usage error (the command was well formed): a `hush: error:` line and exit 1.
                printError("cannot open the relay data in \(data): \(error): give the folder the relay was started with (--data)")
                throw ExitCode(ExitStatus.failure.rawValue)
            }
        }
        if json {
            var object = RelayAudit.json(inventory)
            if let scan {
                object["canary"] = ["filesScanned": scan.filesScanned, "found": scan.foundAnywhere,
                                    "encodings": Dictionary(uniqueKeysWithValues: scan.findings.map { ($0.encoding.rawValue, $0.files) })]
            }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(RelayAudit.render(inventory, dataDirectory: data))
            if let scan, let canary {
                print("")
                print(CanaryScanner.render(scan, canaryLength: canary.count))
            }
        }
        // A canary found means plaintext reached the relay's disk: fail loudly.
        if scan?.foundAnywhere == true { throw ExitCode.failure }
    }
}
