import Foundation
import HushTesting
import Glibc
import Testing

/// The example app (Examples/EchoBot, HushKit's public API only) against a
/// real relay and a real `hush` user.
@Suite struct EchoBotTests {
    /// Starts the bot and waits for it to say it is ready; returns it and its address.
    private static func startBot(_ bed: Testbed, home: String, keyFile: String) throws -> (ChildProcess, String) {
        var environment = HushEnvironment.base
        environment["ECHO_BOT_KEY_FILE"] = keyFile
        let bot = try ChildProcess([home, bed.relay.url], environment: environment, executable: try BuiltBinary.path("EchoBot"))
        let ready = bot.wait(timeout: 60) { $0.lines.contains("ready") || !$0.isRunning }
        try #require(ready && bot.isRunning, "the bot did not start: \(bot.lines)")
        let line = try #require(bot.lines.first { $0.hasPrefix("address: ") })
        return (bot, String(line.dropFirst("address: ".count)))
    }

    /// Syncs `user` until the conversation with `name` holds `body`, a bounded number of times.
    private static func waitFor(_ body: String, from name: String, as user: User, in bed: Testbed) throws -> Bool {
        for _ in 0..<30 {
            try bed.sync(user)
            if try bed.history(user, with: name).incoming.bodies.contains(body) { return true }
            usleep(300_000)
        }
        return false
    }

    @Test func theExampleBotAnswersEveryMessageLiveAndAfterARestart() throws {
        let bed = try Testbed("echo-bot")
        let alice = try bed.newUser("alice")
        let home = bed.root + "/bot", keyFile = bed.root + "/bot.key"
        var (bot, address) = try Self.startBot(bed, home: home, keyFile: keyFile)
        // The key file is the bot's secret: its owner's alone.
        var info = stat()
        #expect(stat(keyFile, &info) == 0 && info.st_mode & 0o777 == 0o600)

        // A stranger to the bot: its message request is accepted and answered live.
        try bed.addContact(alice, User(name: "bot", home: home, address: address))
        try bed.succeed(alice, ["send", "bot", "ping"])
        #expect(try Self.waitFor("echo: ping", from: "bot", as: alice, in: bed))

        // Killed, the bot loses nothing: what arrived while it was away is answered when it is back.
        bot.signal(SIGKILL)
        _ = bot.finish(timeout: 10)
        try bed.succeed(alice, ["send", "bot", "while you were away"])
        (bot, _) = try Self.startBot(bed, home: home, keyFile: keyFile)
        #expect(try Self.waitFor("echo: while you were away", from: "bot", as: alice, in: bed))
        // Each message was answered once.
        let answers = try bed.history(alice, with: "bot").incoming.bodies
        #expect(answers == ["echo: ping", "echo: while you were away"], "\(answers)")
        bot.signal(SIGTERM)
        _ = bot.finish(timeout: 10)
    }
}
