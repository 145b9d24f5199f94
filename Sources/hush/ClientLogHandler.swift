import Logging
import Synchronization

/// How the libraries' warnings reach the user of a client command: one line
/// on standard error, `hush: warning: …`, said once per process, instead of
/// swift-log's default (a timestamp, the level and the logger's label: a
/// server log's line), which `hush` printed above the output of every
/// command on a plain-http relay of another machine. Only for the client's
/// loggers (`hush.relay-client`): the relay's and the audit's logs keep the
/// stream format, a log's.
struct ClientLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning

    /// Each warning once: a command may make its relay client more than once.
    private static let said = Mutex<Set<String>>([])

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= logLevel else { return }
        let text = event.message.description
        guard Self.said.withLock({ $0.insert(text).inserted }) else { return }
        printNotice(text, as: event.level >= .error ? "error" : "warning")
    }

    /// Routes the client's loggers here; every other label to swift-log's default handler.
    static func bootstrap() {
        LoggingSystem.bootstrap { label in
            label == "hush.relay-client" ? ClientLogHandler() as any LogHandler : StreamLogHandler.standardError(label: label)
        }
    }
}
