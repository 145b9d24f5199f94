import Foundation
import HushSubprocess
import HushTesting
import Glibc
import Testing

/// `hush chat` beside `hush daemon` (issue 31): the chat is one more of the
/// daemon's clients, next to `hush listen` and one-shot commands, all at once
/// on one account, with one writer. Before, the chat was refused (exit 26).
@Suite struct ChatThroughDaemonTests {
    /// `hush chat NAME` as `user`, in line mode, reading its lines from a FIFO
    /// the test writes to: the chat stays open until the test closes it.
    final class LineChat {
        let process: ChildProcess
        private let writer: Int32

        init(_ bed: Testbed, _ user: User, _ name: String) throws {
            let fifo = bed.root + "/chat-input-\(user.name)"
            try #require(mkfifo(fifo, 0o600) == 0, "mkfifo: \(String(cString: strerror(errno)))")
            process = try ChildProcess(["-c", "exec \"$0\" chat \"$1\" < \"$2\"", HushBinary.path, name, fifo],
                                       environment: bed.environment(for: user, overrides: DaemonTests.noPassphrase), executable: "/bin/sh")
            // Blocks until the shell opened the other end.
            writer = open(fifo, O_WRONLY)
            try #require(writer >= 0, "open \(fifo): \(String(cString: strerror(errno)))")
        }

        func type(_ line: String) { Subprocess.writeAll(writer, Array((line + "\n").utf8)) }

        /// Ends the chat's input: it finishes as at the end of a script.
        func finish(timeout: Double = 30) -> CommandResult {
            close(writer)
            return process.finish(timeout: timeout)
        }
    }

    @Test func aChatAListenerAndOneShotCommandsShareOneDaemon() throws {
        let bed = try Testbed("chat-daemon")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let daemon = try DaemonTests.startDaemon(bed, alice)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }

        let listener = try bed.spawn(alice, ["listen", "--json"])
        // 60 s: twice, with five of these suites' tests and other builds on two cores, listen printed nothing for 30 s here.
        try #require(listener.wait(timeout: 60) { $0.stdout.contains("\"online\":true") },
                     "listen: \(listener.stdout) \(listener.stderr); daemon: \(daemon.stderr)")
        let chat = try LineChat(bed, alice, "bob")
        // The chat opened (it printed the history) rather than being refused as a second writer.
        try #require(chat.process.wait(timeout: 30) { $0.stdout.contains("bob: hi") || !$0.isRunning },
                     "chat: \(chat.process.stdout) \(chat.process.stderr)")
        try #require(chat.process.isRunning, "the chat beside a daemon ended: \(chat.process.stderr)")

        let rounds = 4
        for round in 0..<rounds {
            chat.type("chat line \(round)")
            let sent = try bed.hush(alice, ["send", "bob", "one-shot \(round)"], environment: DaemonTests.noPassphrase)
            #expect(sent.status == 0, "\(sent)")
            try bed.send(bob, to: "alice", "reply \(round)")
            let history = try bed.hush(alice, ["history", "bob", "--json", "--no-receipts"], environment: DaemonTests.noPassphrase)
            #expect(history.status == 0, "\(history)")
        }
        // Bob's replies come to the chat by the daemon's push, and to the listener too.
        #expect(chat.process.wait(timeout: 30) { process in (0..<rounds).allSatisfy { process.stdout.contains("bob: reply \($0)") } },
                "chat: \(chat.process.stdout) \(chat.process.stderr)")
        #expect(listener.wait(timeout: 30) { process in (0..<rounds).allSatisfy { process.stdout.contains("\"body\":\"reply \($0)\"") } },
                "listen: \(listener.stdout)")
        let result = chat.finish()
        #expect(result.status == 0 && !result.crashed, "\(result)")
        for round in 0..<rounds {
            // Its own message once: when sent, never again for the event of its own send.
            #expect(result.stdout.components(separatedBy: "you: chat line \(round)").count == 2, "\(result.stdout)")
            #expect(result.stdout.components(separatedBy: "bob: reply \(round)").count == 2, "\(result.stdout)")
            #expect(listener.stdout.components(separatedBy: "\"body\":\"reply \(round)\"").count == 2, "\(listener.stdout)")
        }
        listener.signal(SIGTERM)
        let listened = listener.finish(timeout: 20)
        #expect(listened.status == 0 && !listened.crashed, "\(listened)")

        // Nothing lost, nothing twice, on either side.
        try bed.sync(bob)
        let bobs = try bed.history(bob, with: "alice")
        // Read through the daemon: it holds the account.
        let alices = try bed.history(alice, with: "bob")
        for round in 0..<rounds {
            #expect(bobs.count("chat line \(round)") == 1 && bobs.count("one-shot \(round)") == 1, "\(bobs)")
            #expect(alices.count("reply \(round)") == 1 && alices.count("chat line \(round)") == 1, "\(alices)")
        }
        #expect(daemon.isRunning, "\(daemon.stderr)")
    }

    /// In a pseudo-terminal, the chat through the daemon shows an incoming
    /// message and the contact's typing, and its own typing reaches the
    /// contact over the daemon's live connection.
    @Test func anInteractiveChatThroughTheDaemonShowsMessagesAndTyping() throws {
        let bed = try Testbed("chat-daemon-terminal")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob, answer: "an answer from earlier")
        let daemon = try DaemonTests.startDaemon(bed, alice)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        let columns = ChatTerminalTests.columns, rows = ChatTerminalTests.rows

        let aliceChat = try bed.spawnInTerminal(alice, ["chat", "bob"], columns: columns, rows: rows)
        #expect(ChatTerminalTests.waitForScreen(aliceChat) { screen in
            screen.lines[0].hasPrefix("bob · not verified") && screen.lines.contains { $0.contains("bob: an answer from earlier") }
        }, "\(ChatTerminalTests.describe(aliceChat))\n\(aliceChat.stderr)")
        let bobChat = try bed.spawnInTerminal(bob, ["chat", "alice"], columns: columns, rows: rows)
        // Each sees the other online: alice's heartbeats leave over the daemon's socket.
        #expect(ChatTerminalTests.waitForScreen(aliceChat) { $0.lines[0].contains("bob is online") }, "\(ChatTerminalTests.describe(aliceChat))")
        #expect(ChatTerminalTests.waitForScreen(bobChat) { $0.lines[0].contains("alice is online") }, "\(ChatTerminalTests.describe(bobChat))")

        bobChat.type("typed by bob")
        #expect(ChatTerminalTests.waitForScreen(aliceChat) { $0.lines[0].contains("bob is typing…") }, "\(ChatTerminalTests.describe(aliceChat))")
        bobChat.type("\r")
        #expect(ChatTerminalTests.waitForScreen(aliceChat) { $0.lines.contains { $0.contains("bob: typed by bob") } },
                "\(ChatTerminalTests.describe(aliceChat))")
        aliceChat.type("typed by alice")
        #expect(ChatTerminalTests.waitForScreen(bobChat) { $0.lines[0].contains("alice is typing…") }, "\(ChatTerminalTests.describe(bobChat))")
        aliceChat.type("\r")
        #expect(ChatTerminalTests.waitForScreen(bobChat) { $0.lines.contains { $0.contains("alice: typed by alice") } },
                "\(ChatTerminalTests.describe(bobChat))")
        // Alice's line once, with its mark moving in place to read (bob has the chat open).
        #expect(ChatTerminalTests.waitForScreen(aliceChat) { screen in
            screen.lines.filter { $0.contains("you: typed by alice") }.count == 1 && screen.lines.contains { $0.contains("you: typed by alice  ✓✓ read") }
        }, "\(ChatTerminalTests.describe(aliceChat))")

        aliceChat.type("/quit\r")
        let aliceResult = aliceChat.finish(timeout: 20)
        #expect(aliceResult.status == 0 && !aliceResult.crashed, "\(aliceResult.stderr)")
        ChatTerminalTests.expectRestored(aliceChat)
        bobChat.type("/quit\r")
        _ = bobChat.finish(timeout: 20)
        #expect(daemon.isRunning, "\(daemon.stderr)")
    }

    /// Line mode through the daemon exits as it does in its own process (and
    /// as `hush send`): 0 when the relay took everything, 1 at a line too
    /// long (nothing of it sent), 25 when a message waits in the outbox.
    @Test func lineModeThroughTheDaemonExitsAsInItsOwnProcess() throws {
        let bed = try Testbed("chat-daemon-exit")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let daemon = try DaemonTests.startDaemon(bed, bob)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }

        let sent = try bed.hush(bob, ["chat", "alice"], stdin: "while the relay is up\n/nope\n", environment: DaemonTests.noPassphrase)
        #expect(sent.status == 0 && !sent.crashed, "\(sent)")
        #expect(sent.stdout.contains("unknown command /nope"), "\(sent.stdout)")
        let long = String(repeating: "x", count: 40_000)
        let tooLong = try bed.hush(bob, ["chat", "alice"], stdin: "before\n\(long)\nafter\n", environment: DaemonTests.noPassphrase)
        #expect(tooLong.status == 1 && tooLong.stderr.contains("line too long: 40000 bytes, at most 32768"), "\(tooLong)")
        bed.relay.kill()
        let queued = try bed.hush(bob, ["chat", "alice"], stdin: "while the relay is down\n", environment: DaemonTests.noPassphrase)
        #expect(queued.status == 25 && !queued.crashed, "\(queued.status) \(queued.stderr)")
        #expect(queued.stderr.contains("stay in the outbox"), "\(queued.stderr)")
        #expect(daemon.isRunning, "\(daemon.stderr)")
    }

    /// A group's chat through the daemon: the header names the group, its
    /// members' messages carry their names (sent by the daemon with them),
    /// and a line goes to the group.
    @Test func aGroupsChatThroughTheDaemon() throws {
        let bed = try Testbed.forGroups("chat-daemon-group")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }
        try bed.succeed(alice, ["group", "create", "team", "bob", "carol"])
        for user in [bob, carol] { try bed.sync(user) }
        try bed.send(alice, to: "team", "to the team")
        try bed.sync(bob)
        let daemon = try DaemonTests.startDaemon(bed, bob)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }

        let chat = try bed.hush(bob, ["chat", "team"], stdin: "bob to the team\n/history 5\n", environment: DaemonTests.noPassphrase)
        #expect(chat.status == 0 && !chat.crashed, "\(chat)")
        #expect(chat.stdout.components(separatedBy: "alice: to the team").count == 3, "at open and in /history: \(chat.stdout)")
        #expect(chat.stdout.contains("you: bob to the team"), "\(chat.stdout)")
        for user in [alice, carol] {
            try bed.sync(user)
            try bed.sync(user)
            #expect(try bed.history(user, with: "team").count("bob to the team") == 1, "\(user.name)")
        }
    }

    /// The daemon stops under an open chat: the chat says so at once, rather
    /// than going on as if messages could still come.
    @Test func aChatSaysSoWhenTheDaemonStopsUnderIt() throws {
        let bed = try Testbed("chat-daemon-stops")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let daemon = try DaemonTests.startDaemon(bed, alice)
        defer { daemon.signal(SIGTERM); _ = daemon.finish(timeout: 20) }
        let chat = try LineChat(bed, alice, "bob")
        try #require(chat.process.wait(timeout: 30) { $0.stdout.contains("bob: hi") }, "chat: \(chat.process.stdout) \(chat.process.stderr)")
        let stop = try bed.hush(alice, ["daemon", "stop"], environment: DaemonTests.noPassphrase)
        #expect(stop.status == 0, "\(stop)")
        #expect(chat.process.wait(timeout: 30) { $0.stdout.contains("the daemon holding the account stopped") }, "chat: \(chat.process.stdout)")
        let result = chat.finish()
        #expect(result.status == 0 && !result.crashed, "\(result)")
    }
}
