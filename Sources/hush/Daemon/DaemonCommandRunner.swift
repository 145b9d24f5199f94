import ArgumentParser
import Foundation
import HushDaemon
import HushKit
import HushTerminal

/// `cli.run`: a `hush` command run inside the daemon for a client, on the
/// daemon's open account, exactly as it would run in its own process (the
/// same output, errors and exit code), so that a command typed beside a
/// running daemon needs no passphrase and is never a second writer.
enum DaemonCommandRunner {
    static func register(in methods: inout RPCMethods, account: HushAccount, home: String) {
        methods.register("cli.run", summary: """
            Runs a hush command on the daemon's account, as it would run in its own process (same output and exit code). \
            Commands that need a terminal of their own (chat, listen, doctor, passphrase, init) are refused with exit 26 \
            (chat and listen use the chat methods and events.subscribe).
            """, params: [
                .init("argv", required: true, "The arguments after `hush`, e.g. [\"history\", \"bob\", \"--json\"].",
                      schema: .object(["type": .string("array"), "items": .stringSchema])),
                .init("cwd", "The caller's working directory, for relative paths (send --file, fetch --out).", schema: .stringSchema),
                .init("stdin", "What the command reads from standard input, base64.", schema: .stringSchema),
                .init("home", "The data directory the caller means; refused when it is not the daemon's.", schema: .stringSchema),
                .init("stderrIsTerminal", "Whether the caller's standard error is a terminal (progress bars).", schema: .booleanSchema),
                .init("stdoutIsTerminal", "Whether the caller's standard output is a terminal: colour only then (default false).", schema: .booleanSchema),
                .init("noColor", "Whether the caller has NO_COLOR set (no colour whatever its terminal).", schema: .booleanSchema),
                .init("capture", "true: return stdout and stderr in the result; otherwise they stream as cli.output notifications {stream, text} before the result.",
                      schema: .booleanSchema),
            ], result: .objectSchema(["exitCode": .integerSchema, "stdout": .stringSchema, "stderr": .stringSchema], required: ["exitCode"])) { params, call in
            guard let argv = params["argv"]?.arrayValue?.compactMap(\.stringValue), argv.count == params["argv"]?.arrayValue?.count else {
                throw RPCError.invalidParams("'argv' must be an array of strings")
            }
            if let clientHome = try params.optionalString("home"), clientHome != home {
                throw RPCError(code: Int(ExitStatus.usage.rawValue), message: "this daemon serves \(home), not \(clientHome)")
            }
            var input: Data?
            if let stdin = try params.optionalString("stdin") {
                guard let bytes = Data(base64Encoded: stdin) else { throw RPCError.invalidParams("'stdin' must be base64") }
                input = bytes
            }
            let context = CommandContext(account: account, home: home, workingDirectory: try params.optionalString("cwd") ?? "/",
                                         stderrIsTerminal: try params.optionalBool("stderrIsTerminal") ?? false,
                                         style: TerminalStyle(environment: try params.optionalBool("noColor") == true ? ["NO_COLOR": "1"] : [:],
                                                              isTerminal: try params.optionalBool("stdoutIsTerminal") ?? false))
            if try params.optionalBool("capture") == true {
                let captured = CapturedOutput()
                let code = await run(argv, context: context, input: input, output: CommandOutput { captured.append($0, $1) })
                let (stdout, stderr) = captured.texts
                return .object(["exitCode": .number(Double(code)), "stdout": .string(stdout), "stderr": .string(stderr)])
            }
            // Output is forwarded in order by one task, gathered into as few
            // notifications as keep up with it, and all of it before the answer.
            // The command runs on a thread of its own, where a write may wait
            // for a slow client (CoalescedOutput's bound) without holding a
            // thread the forwarding needs; a client that hangs up (the call is
            // cancelled, or a send fails) has the rest of its output dropped.
            let output = CoalescedOutput()
            let forwarder = Task {
                await output.forward { stream, text in
                    try await call.notify("cli.output", .object(["stream": .string(stream.rawValue), "text": .string(text)]))
                }
            }
            let thread = CommandThread()
            let code = await withTaskCancellationHandler {
                await withTaskExecutorPreference(thread) {
                    await run(argv, context: context, input: input, output: CommandOutput { output.write($0, $1) })
                }
            } onCancel: {
                output.discard()
            }
            thread.stop()
            output.finish()
            await forwarder.value
            return .object(["exitCode": .number(Double(code))])
        }
    }

    /// Runs one command line and returns its exit code.
    static func run(_ argv: [String], context: CommandContext, input: Data?, output: CommandOutput) async -> Int32 {
        await CommandOutput.$redirected.withValue(output) {
            do {
                let parsed = try Hush.parseAsRoot(argv)
                guard let command = parsed as? any RunsThroughDaemon else {
                    printError("`hush \(argv.first ?? "")` runs in its own process, not through the daemon: stop the daemon first (`hush daemon stop`)")
                    return ExitStatus.homeInUse.rawValue
                }
                // No stdin from the client is an empty one: never the daemon's own (a terminal it would block on).
                try await CommandContext.$current.withValue(context) {
                    try await CommandInput.$redirected.withValue(input ?? Data()) { try await runOpened(command) }
                }
                return 0
            } catch {
                // What ArgumentParser prints and returns for a command in its own process.
                let message = Hush.fullMessage(for: error)
                if !message.isEmpty { output.write(Hush.exitCode(for: error).isSuccess ? .stdout : .stderr, message + "\n") }
                return Hush.exitCode(for: error).rawValue
            }
        }
    }

    private static func runOpened<Command: RunsThroughDaemon>(_ command: Command) async throws {
        var command = command
        try await command.run()
    }
}

/// A command's output kept whole (`cli.run` with capture).
private final class CapturedOutput: Sendable {
    private let parts = Mutex<(stdout: String, stderr: String)>(("", ""))

    func append(_ stream: CommandOutput.Stream, _ text: String) {
        parts.withLock { parts in
            switch stream {
            case .stdout: parts.stdout += text
            case .stderr: parts.stderr += text
            }
        }
    }

    var texts: (String, String) { parts.withLock { ($0.stdout, $0.stderr) } }
}

import Synchronization
