import ArgumentParser
import Foundation
import HushKit
import HushTerminal

extension ExitStatus {
    /// The exit code for any error: HushKit's and the command line's own
    /// carry theirs, a `ValidationError` thrown from `run()` (e.g. an empty
    /// message on stdin) is a usage error, anything else a plain failure.
    static func code(for error: any Error) -> Int32 {
        if let error = error as? HushError { return error.terminalReport.status.rawValue }
        if let error = error as? CommandError { return error.status.rawValue }
        if error is ValidationError { return ExitStatus.usage.rawValue }
        return ExitStatus.failure.rawValue
    }

    static func message(for error: any Error) -> String {
        if let error = error as? HushError { return error.terminalReport.message }
        return String(describing: error)
    }
}

/// Runs a command body: any error is printed as one clear line on stderr
/// and turned into its exit code.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError(ExitStatus.message(for: error))
        throw ExitCode(ExitStatus.code(for: error))
    }
}

/// The async form of `reportingErrors`, for commands that talk to the relay.
func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError(ExitStatus.message(for: error))
        throw ExitCode(ExitStatus.code(for: error))
    }
}

/// Writes straight to the file descriptor: unbuffered, so it never lands
/// after output that follows it. Defused as a whole: an error may quote a
/// relay's reason, a group's or a file's name.
func printError(_ message: String) {
    CommandOutput.current.write(.stderr, "hush: error: \(UntrustedText.sanitized(message))\n")
}

/// Something the user should know that is not a failure (the command
/// succeeds): on stderr, so that scripts reading stdout are not disturbed.
/// `kind` names it ("note"; "warning" for a library's warning).
func printNotice(_ message: String, as kind: String = "note") {
    CommandOutput.current.write(.stderr, "hush: \(kind): \(UntrustedText.sanitized(message))\n")
}

extension ExitCode {
    init(_ status: ExitStatus) { self.init(status.rawValue) }
}
