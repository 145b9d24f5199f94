import Foundation

/// What one finished `hush` process left behind.
struct CommandResult: CustomStringConvertible {
    let arguments: [String]
    /// The exit code, or 128 + signal when a signal ended the process.
    let status: Int32
    /// Whether the process ended by a signal (a crash, or our SIGKILL).
    let signalled: Bool
    let stdout: String
    let stderr: String

    /// stdout parsed as one JSON object (the `--json` output of one command).
    func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
            throw HarnessError("`hush \(arguments.joined(separator: " "))` printed no JSON object: \(stdout)")
        }
        return object
    }

    /// Whether the process exited by itself with `status`, without a crash trace.
    var crashed: Bool {
        signalled || stderr.contains("Fatal error") || stderr.contains("Stack dump") || stderr.contains("Segmentation")
    }

    var description: String {
        "`hush \(arguments.joined(separator: " "))` -> \(signalled ? "signal" : "exit") \(status)\n  stdout: \(stdout)\n  stderr: \(stderr)"
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
