import Foundation
import HushDaemon
import HushKit

/// The client side of `cli.run`: a command typed while a daemon owns the
/// account is handed to it whole, and its output and exit code come back.
enum DaemonForwarding {
    /// Runs `arguments` through the daemon when `command` may run there and
    /// the daemon of its account answers; returns the exit code, or nil to
    /// run the command in this process.
    static func run(_ arguments: [String]) -> Int32? {
        guard let parsed = try? Hush.parseAsRoot(arguments), let command = parsed as? any RunsThroughDaemon,
              let home = (try? command.global.homeDirectory()).map(HomeDirectory.absolute) else { return nil }
        return forward(arguments, home: home) { command.standardInputForDaemon() }
    }

    /// Hands `arguments` to the daemon of `home` when one answers there, with
    /// what `input` reads from standard input (asked only once connected);
    /// returns the exit code, or nil when no daemon answers.
    static func forward(_ arguments: [String], home: String, input: () -> Data?) -> Int32? {
        guard let connection = DaemonConnection.connect(home: home) else { return nil }
        var params: [String: JSONValue] = [
            "argv": .array(arguments.map(JSONValue.string)), "home": .string(home),
            "cwd": .string(FileManager.default.currentDirectoryPath), "stderrIsTerminal": .bool(isatty(STDERR_FILENO) == 1),
            "stdoutIsTerminal": .bool(isatty(STDOUT_FILENO) == 1),
            "noColor": .bool(ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false),
        ]
        if let input = input() { params["stdin"] = .string(input.base64EncodedString()) }
        do {
            let result = try connection.call("cli.run", .object(params)) { method, output in
                guard method == "cli.output", let text = output["text"]?.stringValue else { return }
                CommandOutput.standard.write(output["stream"]?.stringValue == "stderr" ? .stderr : .stdout, text)
            }
            fflush(nil)
            return Int32(result["exitCode"]?.integerValue ?? Int64(ExitStatus.failure.rawValue))
        } catch is DaemonConnection.Unanswered {
            // Found in a walkthrough: "did not run … try again" after a daemon killed mid-send, and two
            // in three of those messages had gone; following the advice sent them twice.
            fflush(nil)
            printError("the daemon of \(home) stopped before it answered, so whether the command ran is not known: "
                + "look before running it again (`hush history NAME`, `hush outbox`: a message sent again arrives twice); "
                + "`hush daemon status` says whether the daemon runs")
            return ExitStatus.failure.rawValue
        } catch {
            fflush(nil)
            printError("the daemon of \(home) did not run the command: \(error): see `hush daemon status`")
            return ExitStatus.failure.rawValue
        }
    }
}
