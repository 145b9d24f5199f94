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
        #expect(bot.wait(timeout: 60) { $0.stdout.contains("answered bob") }, "\(bot.stdout) \(bot.stderr)")
        // Killed with -9; a message arrives while no bot runs; the next bot answers it, and only it.
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
    }
}
