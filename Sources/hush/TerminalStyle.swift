import Foundation

/// Colour for terminal output, off when stdout is not a terminal or when
/// NO_COLOR is set (https://no-color.org).
enum TerminalStyle {
    static let enabled: Bool = {
        if let value = ProcessInfo.processInfo.environment["NO_COLOR"], !value.isEmpty { return false }
        return isatty(STDOUT_FILENO) == 1
    }()

    static func good(_ text: String) -> String { enabled ? "\u{1b}[32m\(text)\u{1b}[0m" : text }
    static func bad(_ text: String) -> String { enabled ? "\u{1b}[31m\(text)\u{1b}[0m" : text }
    static func dim(_ text: String) -> String { enabled ? "\u{1b}[2m\(text)\u{1b}[0m" : text }
}
