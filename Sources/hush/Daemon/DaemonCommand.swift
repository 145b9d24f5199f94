import ArgumentParser
import Foundation
import HushDaemon
import HushKit
import HushTerminal

struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Run the account in one long-lived process that every other hush command uses.",
        discussion: """
            `hush daemon` (or `hush daemon run`) unlocks the account once, holds it alone, keeps the live \
            connection to the relay (storing what arrives at once), runs the outbox, and serves a local API \
            on the Unix socket daemon.sock in the data directory (0600, and only processes of the same user \
            are answered). While it runs, the account's commands (send, sync, history, contact, group, …) \
            are handed to it: no passphrase, no unlock, one writer; `hush listen` prints the daemon's events, \
            and `hush chat` runs as one more of its clients. \
            It also makes the backups `hush backup schedule` sets. `hush doctor` and `hush passphrase` still run \
            in their own process and are refused (exit 26) while a daemon runs.

            The API is JSON-RPC 2.0, one message per line (docs/DAEMON-API.md); `hush rpc` calls it.

            Examples:
              hush daemon                                 (in the foreground, as a service runs it)
              hush daemon --passphrase-file ~/.hush-pass
              hush daemon status
              hush daemon stop
            """,
        subcommands: [Run.self, Status.self, Stop.self],
        defaultSubcommand: Run.self)

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run the daemon in the foreground until stopped (SIGINT, SIGTERM or `hush daemon stop`).",
            discussion: """
                Under systemd, a credential named hush-passphrase (LoadCredential=hush-passphrase:/path) is \
                read as --passphrase-file would be.
                """)

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let home = HomeDirectory.absolute(try global.homeDirectory())
                let socketPath = DaemonSocket.path(home: home)
                guard socketPath.utf8.count <= DaemonSocket.maximumPathLength else {
                    throw CommandError(.usage, "the socket path \(socketPath) is longer than a Unix socket allows (\(DaemonSocket.maximumPathLength) bytes): use a data directory with a shorter path")
                }
                guard HushAccount.exists(in: home) else { throw HushError(.noAccount, reason: "no identity in \(home) yet") }
                // Refused before the passphrase is asked for: it could not help.
                let holders = HushAccount.holders(of: home)
                if !holders.isEmpty {
                    throw HushError(.homeInUse, reason: "the account in \(home) is in use by \(holders.map(\.description).joined(separator: ", "))")
                }
                var options = global
                if options.passphraseFile == nil, let credentials = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"] {
                    let credential = credentials + "/hush-passphrase"
                    if FileManager.default.fileExists(atPath: credential) { options.passphraseFile = credential }
                }
                let account = try await options.unlocking { directory, keys in
                    try await HushAccount.open(in: directory, keys: keys, ownership: .exclusive)
                }.opened
                let unlocked = ContinuousClock.now
                defer {
                    account.close()
                    unlink(socketPath)
                }
                try await serve(account, home: home, socketPath: socketPath, unlocked: unlocked)
            }
        }

        private func serve(_ account: HushAccount, home: String, socketPath: String, unlocked: ContinuousClock.Instant) async throws {
            let timings = ProcessInfo.processInfo.environment["HUSH_TIMINGS"] == "1"
            let (stops, stopper) = AsyncStream<Void>.makeStream()
            let methods = DaemonMethods.make(account: account, home: home, startedAt: Date()) { stopper.yield() }
            let server = LocalSocketServer(path: socketPath, methods: methods, translate: DaemonMethods.translate)
            let replacement = await account.replacement()
            // Subscribed before the live connection starts: a catch-up that fails at once (a daemon
            // started on a full disk) is told too (a review).
            let events = account.events()
            account.startLive()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await server.run {
                        if timings {
                            let elapsed = ContinuousClock.now - unlocked
                            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                            CommandOutput.standard.write(.stderr, String(format: "timing: ready %.2f ms after the unlock\n", milliseconds))
                        }
                        CommandOutput.standard.write(.stderr, "hush daemon: serving \(home) on \(socketPath) (pid \(getpid()))\n")
                        // It serves the history still, and nothing more (§19.4): said at once, not at the first send.
                        if let replacement {
                            CommandOutput.standard.write(.stderr, "hush daemon: \(UntrustedText.sanitized(replacement.terminalReport.message))\n")
                        }
                    }
                }
                group.addTask {
                    // Ends only when the daemon stops (the end of any task here stops it).
                    await BackupScheduler.run(account)
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
                }
                group.addTask {
                    // What the live connection could not store (a full disk, say) is said where the daemon's
                    // operator looks, not only to a subscribed client (a walkthrough's daemon said nothing and
                    // `daemon status` looked healthy). Once per failure: LiveSync tells one again only when it
                    // changes. Nothing is lost meanwhile: it stays at the relay.
                    for await event in events {
                        // Our own storage only: a relay out of reach is a state the daemon rides out, and a
                        // replaced home was said at the start.
                        guard case let .syncFailed(error) = event, error.kind == .storage else { continue }
                        CommandOutput.standard.write(.stderr, "hush daemon: what arrives cannot be stored or fetched now, and stays at the relay: "
                            + "\(UntrustedText.sanitized(error.terminalReport.message))\n")
                    }
                    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
                }
                group.addTask { for await _ in Self.interrupts() { return } }
                group.addTask { for await _ in stops { return } }
                try await group.next()
                group.cancelAll()
            }
            await LiveStop.stop(account) { unlink(socketPath) }
        }

        /// SIGINT and SIGTERM as they arrive, until the task that reads them is cancelled.
        static func interrupts() -> AsyncStream<Int32> {
            AsyncStream { continuation in
                let sources = [SIGINT, SIGTERM].map { number in
                    signal(number, SIG_IGN)
                    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                    source.setEventHandler { continuation.yield(number) }
                    source.resume()
                    return source
                }
                let held = SignalSources(sources)
                continuation.onTermination = { _ in held.cancel() }
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Say whether a daemon runs for the account, and what it serves (exit 0 when one answers, 1 when none).")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let home = try global.homeDirectory()
                // One connection, probed (a stopped daemon is named, a busy one waited for).
                guard let answering = try DaemonForwarding.answeringConnection(home: home) else {
                    let holders = HushAccount.holders(of: home)
                    let note = holders.isEmpty ? "" : " (the account is held by \(holders.map(\.description).joined(separator: ", ")))"
                    if global.json { try printJSON(["running": false, "home": home]) } else { print("no daemon runs for \(home)\(note)") }
                    throw ExitCode(ExitStatus.failure.rawValue)
                }
                let status = try answering.call("daemon.status")
                if global.json {
                    print(status.description)
                } else {
                    print("daemon pid \(status["pid"]?.integerValue ?? 0) serves \(home)")
                    print("  address: \(status["address"]?.stringValue ?? "?")")
                    print("  relay: \(status["relay"]?.stringValue ?? "none")")
                    print("  socket: \(DaemonSocket.path(home: home))")
                }
            }
        }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stop",
            abstract: "Stop the account's daemon and wait until it has let the account go.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let home = try global.homeDirectory()
                guard let answering = try DaemonForwarding.answeringConnection(home: home) else {
                    print("no daemon runs for \(home)")
                    return
                }
                let pid = try answering.call("daemon.status")["pid"]?.integerValue
                _ = try answering.call("daemon.stop")
                answering.close()
                let deadline = ContinuousClock.now + .seconds(10)
                while HushAccount.holders(of: home).contains(where: { Int64($0.pid) == pid }) {
                    guard ContinuousClock.now < deadline else {
                        throw CommandError(.failure, "the daemon (pid \(pid ?? 0)) did not stop within 10 s: `kill \(pid ?? 0)` stops it (nothing is lost)")
                    }
                    try await Task.sleep(for: .milliseconds(20))
                }
                print("daemon stopped")
            }
        }
    }
}

/// Dispatch's signal sources, cancelled once (they are thread-safe; Dispatch does not say so to Swift).
private final class SignalSources: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancel() { sources.forEach { $0.cancel() } }
}
