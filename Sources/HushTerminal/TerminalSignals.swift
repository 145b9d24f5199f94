import Foundation

/// Signals a full-screen program must answer: a resize repaints, and a
/// hangup or termination gives the terminal back (raw mode off, normal
/// screen) before the process ends, instead of leaving the shell unusable.
public final class TerminalSignals: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []

    /// `restore` runs before the process exits with 128 + the signal's number.
    public init(onResize: @escaping @Sendable () -> Void, restore: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "hush.terminal.signals")
        for number in [SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
            // The default action would end the process without restoring the terminal.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if number == SIGWINCH {
                    onResize()
                } else {
                    restore()
                    exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Back to the default actions.
    public func cancel() {
        for source in sources { source.cancel() }
        sources.removeAll()
        for number in [SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT] { signal(number, SIG_DFL) }
    }
}
