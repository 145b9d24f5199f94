import Glibc

/// Puts the terminal on standard input into raw mode (no echo, no line
/// buffering, no signals from keys) and restores the saved settings afterwards.
/// Ctrl-C arrives as a byte (the line editor turns it into `.interrupted`),
/// so leaving always goes through the code that restores the terminal.
public final class RawMode: @unchecked Sendable {
    private var saved = termios()
    private let active: Bool
    private let lock = Mutex()

    /// Does nothing (and `isActive` is false) when standard input is not a terminal.
    public init() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else {
            active = false
            return
        }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        active = tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0
    }

    public var isActive: Bool { active }

    /// Puts the saved settings back; safe to call more than once and from a signal handler's queue.
    public func restore() {
        guard active else { return }
        lock.locked { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
    }

    deinit { restore() }

    /// A pthread mutex: this file imports Glibc only.
    private final class Mutex {
        private var mutex = pthread_mutex_t()
        init() { pthread_mutex_init(&mutex, nil) }
        deinit { pthread_mutex_destroy(&mutex) }
        func locked(_ body: () -> Void) {
            pthread_mutex_lock(&mutex)
            defer { pthread_mutex_unlock(&mutex) }
            body()
        }
    }
}
