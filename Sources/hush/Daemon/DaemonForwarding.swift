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
    /// How long a daemon has to answer `daemon.status` before a command is
    /// handed to it: a daemon stopped with Ctrl-Z or SIGSTOP still accepts
    /// connections (the kernel does) but reads nothing, and every command
    /// hung there with no word (a walkthrough); one sent then went out when
    /// the daemon was continued, after the user had sent it again.
    static let answerPatience: Duration = .seconds(5)

    /// A connection to the daemon of `home` once it has answered
    /// `daemon.status` within `answerPatience`; nil when no daemon listens
    /// there. Throws (exit 26, saying what to do) when one listens but does
    /// not answer.
    static func answeringConnection(home: String) throws(CommandError) -> DaemonConnection? {
        guard let probe = DaemonConnection.connect(home: home) else { return nil }
        defer { probe.close() }
        do {
            _ = try probe.call("daemon.status", timeout: answerPatience)
        } catch is DaemonConnection.TimedOut {
            let daemon = HushAccount.holders(of: home).first { $0.command?.contains("daemon") == true }
            // Stopped (Ctrl-Z, SIGSTOP): it will not answer until continued. Merely busy (a slow disk
            // under its catch-up, a backup): its answer is waited for, as before (a review: a busy
            // daemon must not be reported stopped, nor refuse `daemon stop`).
            guard let daemon else {
                throw CommandError(.homeInUse, "something listens on the daemon socket of \(home) but does not answer, and no daemon holds the "
                    + "account: `hush daemon status` again, or remove the socket if nothing should serve it. Nothing was handed to it")
            }
            guard !isStopped(daemon.pid) else {
                throw CommandError(.homeInUse, "the daemon of \(home) (\(daemon)) does not answer: it is stopped "
                    + "(Ctrl-Z in its terminal: `fg` there; SIGSTOP: `kill -CONT` its process). Nothing was handed to it")
            }
            printNotice("the daemon of \(home) (\(daemon)) has not answered in \(answerPatience.components.seconds) s: it is busy; waiting for it")
            do {
                while let message = try probe.receive(), message["method"] != nil {}
            } catch {
                // Gone meanwhile: a fresh connection below says so.
            }
        } catch {
            // Gone between the connect and the answer, or refusing: a fresh connection says which.
        }
        return DaemonConnection.connect(home: home)
    }

    /// Whether process `pid` is stopped (state T or t in /proc/PID/stat):
    /// it reads nothing until it is continued.
    static func isStopped(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state == "T" || state == "t"
    }

    static func forward(_ arguments: [String], home: String, input: () -> Data?) -> Int32? {
        let answering: DaemonConnection?
        do {
            answering = try answeringConnection(home: home)
        } catch {
            printError(error.message)
            return error.status.rawValue
        }
        guard let connection = answering else { return nil }
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
