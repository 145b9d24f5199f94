import Glibc

/// The size of the terminal on standard output, in character cells.
public struct TerminalSize: Sendable, Equatable {
    public var columns: Int
    public var lines: Int

    public init(columns: Int, lines: Int) {
        self.columns = columns
        self.lines = lines
    }

    /// What the terminal reports (TIOCGWINSZ), or 80×24 when it reports nothing.
    public static func current() -> TerminalSize {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return TerminalSize(columns: 80, lines: 24)
        }
        return TerminalSize(columns: Int(size.ws_col), lines: Int(size.ws_row))
    }
}
