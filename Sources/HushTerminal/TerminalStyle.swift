import Foundation

/// Colour for terminal output, off when NO_COLOR is set (https://no-color.org)
/// or when standard output is not a terminal.
public struct TerminalStyle: Sendable {
    public let enabled: Bool

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, isTerminal: Bool = isatty(STDOUT_FILENO) == 1) {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        enabled = isTerminal && !noColor
    }

    /// The style for standard output of this process.
    public static let standard = TerminalStyle()

    public func good(_ text: String) -> String { green(text) }
    public func bad(_ text: String) -> String { red(text) }
    public func bold(_ text: String) -> String { wrap(text, "1") }
    public func dim(_ text: String) -> String { wrap(text, "2") }
    public func green(_ text: String) -> String { wrap(text, "32") }
    public func red(_ text: String) -> String { wrap(text, "31") }
    public func yellow(_ text: String) -> String { wrap(text, "33") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
