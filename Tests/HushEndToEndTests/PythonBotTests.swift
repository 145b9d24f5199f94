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

        let bot = try ChildProcess([Self.script, "--home", alice.home, "--count", "1"],
                                   environment: bed.environment(for: alice, overrides: DaemonTests.noPassphrase), executable: Self.python)
        try #require(bot.wait(timeout: 30) { $0.stdout.contains("listening") }, "the bot did not start: \(bot.stderr)")
        try bed.send(bob, to: "alice", "ping from bob")
        let result = bot.finish(timeout: 60)
        #expect(result.status == 0 && result.stdout.contains("answered bob"), "\(result)")

        var echoed = false
        for _ in 0..<50 where !echoed {
            try bed.sync(bob)
            echoed = try bed.history(bob, with: "alice").count("echo: ping from bob") == 1
            if !echoed { usleep(200_000) }
        }
        #expect(echoed, "bob never received the echo")
    }
}
