import Foundation
import Testing

/// Examples/python-bot: a bot in plain Python against the daemon's socket
/// (issue 31, item 6) answers a contact's message.
@Suite struct PythonBotTests {
    static let python = "/usr/bin/python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/python-bot/echo_bot.py").path

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: python), "needs python3 (make test installs it)"))
    func thePythonBotAnswersAMessage() throws {
        let bed = try Testbed("python-bot")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let daemon = try DaemonTests.startDaemon(bed, alice)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }

        func startBot(count: Int) throws -> ChildProcess {
            let bot = try ChildProcess([Self.script, "--home", alice.home, "--count", String(count)],
                                       environment: bed.environment(for: alice, overrides: DaemonTests.noPassphrase), executable: Self.python)
            try #require(bot.wait(timeout: 30) { $0.stdout.contains("listening") }, "the bot did not start: \(bot.stderr)")
            return bot
        }
        let bot = try startBot(count: 2)
        try bed.send(bob, to: "alice", "ping from bob")
        #expect(bot.wait(timeout: 60) { $0.stdout.contains("answered bob") && $0.stdout.contains("acknowledged through") },
                "\(bot.stdout) \(bot.stderr)")
        // Killed with -9 once its answer is acknowledged (killed between answering and acknowledging,
        // the next bot would replay "ping from bob", and its idempotency key would answer it again
        // without sending: checked at the end); a message arrives while no bot runs; the next bot
        // answers it, and only it.
        bot.signal(SIGKILL)
        _ = bot.finish(timeout: 20)
        try bed.send(bob, to: "alice", "while the bot was down")
        let second = try startBot(count: 1)
        let result = second.finish(timeout: 60)
        #expect(result.status == 0 && result.stdout.contains("answered bob"), "\(result)")

        var history: [Message] = []
        for _ in 0..<50 {
            try bed.sync(bob)
            history = try bed.history(bob, with: "alice")
            if history.count("echo: while the bot was down") >= 1 { break }
            usleep(200_000)
        }
        #expect(history.count("echo: ping from bob") == 1, "\(history)")
        #expect(history.count("echo: while the bot was down") == 1, "\(history)")

        // What a bot killed between answering and acknowledging does on replay: the same
        // idempotency key again returns the first message and sends nothing.
        let request = #"{"to": "bob", "text": "sent once", "idempotencyKey": "echo-bot-replayed"}"#
        let first = try bed.hush(alice, ["rpc", "messages.send", request], environment: DaemonTests.noPassphrase)
        let retried = try bed.hush(alice, ["rpc", "messages.send", request], environment: DaemonTests.noPassphrase)
        try #require(first.status == 0 && retried.status == 0, "\(first) \(retried)")
        func messageId(_ output: String) -> String? {
            ((try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any])?["clientMessageId"] as? String
        }
        #expect(messageId(first.stdout) != nil && messageId(first.stdout) == messageId(retried.stdout), "\(first) \(retried)")
        for _ in 0..<50 {
            try bed.sync(bob)
            history = try bed.history(bob, with: "alice")
            if history.count("sent once") >= 1 { break }
            usleep(200_000)
        }
        try bed.sync(bob)
        #expect(try bed.history(bob, with: "alice").count("sent once") == 1)
    }
}
