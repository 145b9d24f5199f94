import Foundation
import Glibc

/// A real relay: `hush relay serve --port P --data DIR` as a child process.
/// It can be killed (SIGKILL, no chance to clean up) and started again on
/// the same port and data directory.
final class RelayServer: @unchecked Sendable {
    let dataDirectory: String
    let logLevel: String
    private(set) var port: Int
    private var child: ChildProcess?

    /// The key pin a `--tls-self-signed` relay printed (then `url` is https://).
    private(set) var pin: String?

    var url: String { "\(pin == nil ? "http" : "https")://127.0.0.1:\(port)" }

    /// `url` with its key pin, as users of a self-signed relay are given it.
    var pinnedURL: String? { pin.map { "\(url)#pin=\($0)" } }

    /// Starts a relay on `port` (0: a free one, read back from its first line).
    /// Further `hush relay serve` options (connection limits, say).
    private(set) var options: [String]
    /// When set, the next `start()` runs the relay as if its disk held only
    /// this many bytes per file (see `ChildProcess`).
    var fileSizeLimit: Int?

    init(dataDirectory: String, port: Int = 0, logLevel: String = "error", options: [String] = []) throws {
        self.dataDirectory = dataDirectory
        self.logLevel = logLevel
        self.options = options
        self.port = port
        try start()
    }

    /// Starts the relay again on the same port and data directory.
    func start() throws {
        precondition(child == nil, "the relay already runs")
        let process = try ChildProcess(["relay", "serve", "--host", "127.0.0.1", "--port", String(port), "--data", dataDirectory,
                                        "--log-level", logLevel] + options, environment: HushEnvironment.base,
                                       fileSizeLimit: fileSizeLimit)
        // The relay prints one line once it listens: "hush relay listening on http(s)://HOST:PORT",
        // and with --tls-self-signed its key pin on the next.
        let tls = options.contains("--tls-self-signed")
        let ready = process.wait(timeout: 30) { state in
            (state.lines.contains { $0.hasPrefix("hush relay listening on http") }
                && (!tls || state.lines.contains { $0.hasPrefix("hush relay key pin: ") })) || !state.isRunning
        }
        guard ready, let line = process.lines.first(where: { $0.hasPrefix("hush relay listening on http") }),
              let colon = line.lastIndex(of: ":"), let listening = Int(line[line.index(after: colon)...]) else {
            let result = process.finish(timeout: 1)
            throw HarnessError("the relay did not start on port \(port): \(result)")
        }
        if port != 0 && listening != port { throw HarnessError("the relay listens on \(listening), not \(port)") }
        port = listening
        pin = process.lines.first { $0.hasPrefix("hush relay key pin: ") }
            .flatMap { $0.dropFirst("hush relay key pin: ".count).split(separator: " ").first.map(String.init) }
        child = process
    }

    /// SIGKILL: the relay gets no chance to flush or close anything.
    func kill() {
        guard let child else { return }
        child.signal(SIGKILL)
        _ = child.finish(timeout: 10)
        self.child = nil
    }

    /// SIGSTOP: the relay reads nothing more until `resume()` (a transfer in
    /// flight stays where it is, whatever the machine's load).
    func pause() { child?.signal(SIGSTOP) }

    /// SIGCONT after `pause()`.
    func resume() { child?.signal(SIGCONT) }

    /// A graceful stop (SIGTERM); how the relay ended, or nil when it was not running.
    @discardableResult
    func stop() -> CommandResult? {
        guard let child else { return nil }
        child.signal(SIGTERM)
        let ended = child.finish(timeout: 10)
        self.child = nil
        return ended
    }

    /// Restarts the relay (same port and data) accepting logins made for
    /// `url` too, as an operator lists a proxy's URL with `--origin`: a client
    /// behind a test proxy signs for the proxy's address.
    func acceptLogins(for url: String) throws {
        stop()
        options += ["--origin", url]
        try start()
    }

    var isRunning: Bool { child?.isRunning ?? false }

    /// What the running relay logged so far (standard error).
    var log: String { child?.stderr ?? "" }

    /// For a test's failure message: whether the relay still runs, how it
    /// ended if not, and the end of what it logged.
    var diagnosis: String {
        guard let child else { return "the relay was stopped by the test" }
        guard !child.isRunning else { return "the relay runs; its log ends: \(child.stderr.suffix(1_500))" }
        return "the relay ended: \(child.finish(timeout: 0))"
    }

    deinit { kill() }
}
