import Foundation

/// Where a command's output goes: this process's stdout and stderr, or,
/// for a command the daemon runs for a client (`DaemonCommandRunner`),
/// that client's connection. Every `print` in this module goes through here
/// (the function below shadows the standard library's), so a command does
/// not know, and need not care, which of the two runs it.
struct CommandOutput: Sendable {
    enum Stream: String, Sendable { case stdout, stderr }

    let write: @Sendable (_ stream: Stream, _ text: String) -> Void

    /// The output of the command this task runs for a daemon client; nil in a command run in its own process.
    @TaskLocal static var redirected: CommandOutput?

    /// The current task's output: the client's, else this process's.
    static var current: CommandOutput { redirected ?? .standard }

    /// This process's own stdout (buffered, as `Swift.print`) and stderr (unbuffered, so it never lands after later stdout).
    static let standard = CommandOutput { stream, text in
        switch stream {
        case .stdout: Swift.print(text, terminator: "")
        case .stderr: _ = text.withCString { Foundation.write(STDERR_FILENO, $0, strlen($0)) }
        }
    }
}

/// `Swift.print`, to the current command's output.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    CommandOutput.current.write(.stdout, items.map { "\($0)" }.joined(separator: separator) + terminator)
}

/// What a command reads from standard input: this process's, or the bytes
/// a daemon client sent with the command.
enum CommandInput {
    @TaskLocal static var redirected: Data?

    /// All of standard input (the client's, for a command the daemon runs).
    static func readAll() -> Data {
        redirected ?? FileHandle.standardInput.readDataToEndOfFile()
    }
}
