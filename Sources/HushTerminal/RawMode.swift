import Glibc

/// Puts the terminal on standard input into raw mode (no echo, no line
/// buffering) and restores the saved settings afterwards, also on Ctrl-C.
public final class RawMode {
    private var saved = termios()
    private let active: Bool

    /// Does nothing (and `isActive` is false) when standard input is not a terminal.
    public init() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &saved) == 0 else {
            active = false
            return
        }
        var raw = saved
        // Keep ISIG so Ctrl-C still interrupts; turn off echo and canonical mode.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        active = tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0
    }

    public var isActive: Bool { active }

    public func restore() {
        guard active else { return }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }

    deinit { restore() }
}
