import Foundation
import Glibc
import Testing

/// `hush chat` as a person uses it: in a real pseudo-terminal (as tmux or a
/// terminal emulator would run it), two users against a real relay. What the
/// program drew is read back through `ScreenEmulator`.
@Suite struct ChatTerminalTests {
    static let columns = 80, rows = 24

    /// The screen `chat` shows now.
    static func screen(_ chat: ChildProcess) -> ScreenEmulator {
        ScreenEmulator(columns: columns, rows: rows, output: chat.stdout)
    }

    /// Waits until the screen satisfies `condition`; false after `timeout` seconds.
    @discardableResult
    static func waitForScreen(_ chat: ChildProcess, timeout: Double = 20, _ condition: (ScreenEmulator) -> Bool) -> Bool {
        chat.wait(timeout: timeout) { condition(screen($0)) }
    }

    static func describe(_ chat: ChildProcess) -> String {
        screen(chat).lines.enumerated().map { "\($0.offset):\t\($0.element)" }.joined(separator: "\n")
    }

    /// Whether the terminal was left as it was found: echo, line editing and signal keys on,
    /// the normal screen back (the last alternate-screen switch is the one off).
    static func expectRestored(_ chat: ChildProcess, sourceLocation: SourceLocation = #_sourceLocation) {
        let settings = chat.terminalSettingsAtExit
        #expect(settings != nil, sourceLocation: sourceLocation)
        if let settings {
            let wanted = tcflag_t(ECHO | ICANON | ISIG)
            #expect(settings.c_lflag & wanted == wanted, "terminal left in raw mode", sourceLocation: sourceLocation)
        }
        let output = chat.stdout
        let on = output.range(of: "\u{1B}[?1049h", options: .backwards), off = output.range(of: "\u{1B}[?1049l", options: .backwards)
        #expect(on != nil && off != nil && off!.lowerBound > on!.lowerBound, "still on the alternate screen", sourceLocation: sourceLocation)
    }

    @Test func twoPeopleChatWithHistoryTypingAndReceiptsInPlace() throws {
        let bed = try Testbed("chat-terminal")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob, first: "written before the chat")
        try bed.send(bob, to: "alice", "an answer from earlier 👍")
        try bed.sync(alice)
        // Alice's delivery credential for bob (handed over when she read his answer)
        // waits in his mailbox: his chat must fetch it before its first heartbeat.

        // Header and history on open.
        let bobChat = try bed.spawnInTerminal(bob, ["chat", "alice"], columns: Self.columns, rows: Self.rows)
        #expect(Self.waitForScreen(bobChat) { screen in
            screen.lines[0].hasPrefix("alice · not verified")
                && screen.lines.contains { $0.contains("alice: written before the chat") }
                && screen.lines.contains { $0.contains("you: an answer from earlier 👍") }
                && screen.lines[Self.rows - 1] == ">"
        }, "\(Self.describe(bobChat))\n\(bobChat.stderr)")

        let aliceChat = try bed.spawnInTerminal(alice, ["chat", "bob"], columns: Self.columns, rows: Self.rows)
        #expect(Self.waitForScreen(aliceChat) { $0.lines.contains { $0.contains("bob: an answer from earlier 👍") } },
                "\(Self.describe(aliceChat))")
        // Each sees the other online (a heartbeat over the live socket as it comes up).
        #expect(Self.waitForScreen(bobChat) { $0.lines[0].contains("alice is online") }, "\(Self.describe(bobChat))")

        // Typing shows in the header while alice types, and clears after she pauses.
        aliceChat.type("still typing")
        #expect(Self.waitForScreen(bobChat) { $0.lines[0].contains("alice is typing…") }, "\(Self.describe(bobChat))")
        #expect(Self.waitForScreen(bobChat, timeout: 30) { !$0.lines[0].contains("typing") && $0.lines[0].contains("alice is online") },
                "typing never cleared: \(Self.describe(bobChat))")

        // A message arrives while bob is typing: it appears above, his draft stays on the input line.
        bobChat.type("my half-typed draft")
        #expect(Self.waitForScreen(bobChat) { $0.lines[Self.rows - 1] == "> my half-typed draft" }, "\(Self.describe(bobChat))")
        aliceChat.type(", now sent\r")
        #expect(Self.waitForScreen(bobChat) { screen in
            screen.lines.contains { $0.contains("alice: still typing, now sent") } && screen.lines[Self.rows - 1] == "> my half-typed draft"
        }, "\(Self.describe(bobChat))")

        // Bob sends it. Alice has the chat open, so it is read at once: the mark on
        // its line becomes "read" where it stands, with no status line after it.
        bobChat.type("\r")
        #expect(Self.waitForScreen(bobChat) { screen in
            let lines = screen.lines
            return lines[Self.rows - 2].contains("you: my half-typed draft  ✓✓ read") && lines[Self.rows - 1] == ">"
                && lines.filter { $0.contains("my half-typed draft") }.count == 1
        }, "\(Self.describe(bobChat))")
        #expect(Self.waitForScreen(aliceChat) { $0.lines.contains { $0.contains("bob: my half-typed draft") } }, "\(Self.describe(aliceChat))")

        // A bracketed paste keeps its line break inside one message.
        bobChat.type("\u{1B}[200~first pasted line\r\nsecond pasted line\u{1B}[201~")
        #expect(Self.waitForScreen(bobChat) { $0.lines[Self.rows - 1] == "> first pasted line↵second pasted line" }, "\(Self.describe(bobChat))")
        bobChat.type("\r")
        #expect(Self.waitForScreen(aliceChat) { screen in
            guard let row = screen.lines.firstIndex(where: { $0.contains("bob: first pasted line") }) else { return false }
            return screen.lines[row + 1].trimmingCharacters(in: .whitespaces) == "second pasted line"
        }, "\(Self.describe(aliceChat))")

        // What bob sends with another command beside his chat shows in it, once (it showed only
        // after /history: a walkthrough).
        try bed.send(bob, to: "alice", "sent beside the chat")
        #expect(Self.waitForScreen(bobChat) { screen in
            screen.lines.filter { $0.contains("you: sent beside the chat") }.count == 1
        }, "\(Self.describe(bobChat))")

        // Commands stay local: /help lists them; nothing reaches alice.
        bobChat.type("/help\r")
        #expect(Self.waitForScreen(bobChat) { $0.lines.contains { $0.contains("/history [N]") } }, "\(Self.describe(bobChat))")
        bobChat.type("/nonsense\r")
        #expect(Self.waitForScreen(bobChat) { $0.lines.contains { $0.contains("unknown command /nonsense") } }, "\(Self.describe(bobChat))")

        // More than a screenful: the first messages scroll off the top. Page Up
        // brings them back, with a line saying how to return; Page Down returns.
        // (Three pages: three /help lists since /edit, /fetch and the ID line joined it.)
        bobChat.type("/help\r/help\r")
        #expect(Self.waitForScreen(bobChat) { screen in
            screen.lines[Self.rows - 2].contains("//TEXT") && !screen.lines.contains { $0.contains("written before the chat") }
        }, "\(Self.describe(bobChat))")
        bobChat.type("\u{1B}[5~\u{1B}[5~\u{1B}[5~")
        #expect(Self.waitForScreen(bobChat) { screen in
            screen.lines.contains { $0.contains("alice: written before the chat") } && screen.lines.contains { $0.contains("below: Page Down") }
        }, "\(Self.describe(bobChat))")
        bobChat.type("\u{1B}[6~\u{1B}[6~\u{1B}[6~")
        #expect(Self.waitForScreen(bobChat) { screen in
            !screen.lines.contains { $0.contains("below: Page Down") } && screen.lines[Self.rows - 2].contains("//TEXT")
        }, "\(Self.describe(bobChat))")

        // A resize (SIGWINCH from the kernel) repaints for the new size at once.
        let before = bobChat.stdout.utf8.count
        bobChat.resize(columns: 60, rows: 12)
        #expect(bobChat.wait(timeout: 20) { chat in
            let screen = ScreenEmulator(columns: 60, rows: 12, output: chat.stdout)
            return chat.stdout.utf8.count > before && screen.lines[0].hasPrefix("alice · not verified")
                && screen.lines[10].contains("//TEXT") && screen.lines[11] == ">"
        }, "\(ScreenEmulator(columns: 60, rows: 12, output: bobChat.stdout).lines)")

        // /quit leaves and gives the terminal back.
        bobChat.type("/quit\r")
        let bobResult = bobChat.finish(timeout: 20)
        #expect(bobResult.status == 0 && !bobResult.crashed, "\(bobResult)")
        Self.expectRestored(bobChat)

        // Ctrl-C in the middle of a draft does too.
        aliceChat.type("unsent words")
        aliceChat.type("\u{03}")
        let aliceResult = aliceChat.finish(timeout: 20)
        #expect(aliceResult.status == 0 && !aliceResult.crashed, "\(aliceResult.status) \(aliceResult.stdout.suffix(3000))")
        Self.expectRestored(aliceChat)

        let history = try bed.history(alice, with: "bob")
        #expect(history.bodies == ["written before the chat", "an answer from earlier 👍", "still typing, now sent", "my half-typed draft",
                                   "first pasted line\nsecond pasted line", "sent beside the chat"])
        #expect(!history.bodies.contains { $0.hasPrefix("/") || $0.contains("unsent") })
    }

    /// A message written on the home to another contact (`hush send bob` beside
    /// `hush chat carol`) is nothing new to read: the chat with carol says
    /// nothing of it (a walkthrough: each drew "new message from bob"), while a
    /// message bob writes is still noticed there.
    @Test func whatThisHomeSendsElsewhereIsNoNewMessageInAnotherChat() throws {
        let bed = try Testbed("chat-elsewhere")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        try bed.meet(alice, bob)
        try bed.meet(alice, carol)
        try bed.sync(alice)
        let chat = try bed.spawnInTerminal(alice, ["chat", "carol"], columns: Self.columns, rows: Self.rows)
        #expect(Self.waitForScreen(chat) { $0.lines[Self.rows - 1] == ">" }, "\(Self.describe(chat))")
        try bed.send(alice, to: "bob", "to bob beside the chat")
        try bed.send(alice, to: "carol", "to carol beside the chat")
        #expect(Self.waitForScreen(chat) { $0.lines.contains { $0.contains("you: to carol beside the chat") } }, "\(Self.describe(chat))")
        try bed.send(bob, to: "alice", "from bob")
        #expect(Self.waitForScreen(chat) { $0.lines.contains { $0.contains("new message from bob") } }, "\(Self.describe(chat))")
        #expect(Self.screen(chat).lines.filter { $0.contains("new message from bob") }.count == 1, "\(Self.describe(chat))")
        chat.type("\u{03}")
        let result = chat.finish(timeout: 20)
        #expect(result.status == 0 && !result.crashed, "\(result.status)")
    }

    /// A message deleted for everyone while the other side's chat shows it is
    /// rewritten "(deleted)" where it stands, as an edit is (its text stayed on
    /// the screen until the chat was opened again: a walkthrough).
    @Test func aMessageDeletedForEveryoneLeavesNoTextOnAnOpenChat() throws {
        let bed = try Testbed("chat-deleted")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.acquaint(alice, bob)
        let chat = try bed.spawnInTerminal(bob, ["chat", "alice"], columns: Self.columns, rows: Self.rows)
        #expect(Self.waitForScreen(chat) { $0.lines[Self.rows - 1] == ">" }, "\(Self.describe(chat))")
        let sent = try bed.send(alice, to: "bob", "the pineapple plan")
        #expect(Self.waitForScreen(chat) { $0.lines.contains { $0.contains("alice: the pineapple plan") } }, "\(Self.describe(chat))")
        try bed.succeed(alice, ["delete", "bob", String(try #require(sent["id"] as? Int)), "--for-everyone"])
        #expect(Self.waitForScreen(chat) { screen in
            !screen.lines.contains { $0.contains("pineapple") } && screen.lines.contains { $0.contains("alice: (deleted)") }
        }, "\(Self.describe(chat))")
        chat.type("\u{03}")
        _ = chat.finish(timeout: 20)
    }

    /// Without a terminal, each line is a message (commands still work and are
    /// never sent), and the chat ends with the input.
    @Test func lineModeSendsEachLineAndKeepsCommandsLocal() throws {
        let bed = try Testbed("chat-lines")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let result = try bed.hush(bob, ["chat", "alice"], stdin: "first line\n/help\n//slash at the start\n/nope\n")
        #expect(result.status == 0 && !result.crashed, "\(result)")
        #expect(!result.stdout.contains("\u{1B}["), "escape sequences without a terminal: \(result.stdout)")
        #expect(result.stdout.contains("/history [N]") && result.stdout.contains("unknown command /nope"), "\(result)")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").incoming.bodies == ["first line", "/slash at the start"])
    }

    /// `/file PATH` in a chat sends the file like `hush send --file`: the
    /// contact lists it and fetches the same bytes; a missing file is an
    /// error on the chat's screen, and the chat goes on.
    @Test func aFileSentFromTheChatArrivesWhole() throws {
        let bed = try Testbed("chat-file")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let bytes = AttachmentTests.file(150_000, canary: "chat")
        let path = bed.root + "/from chat.bin", out = bed.root + "/got.bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try bed.hush(bob, ["chat", "alice"], stdin: "/file \(bed.root)/missing.bin\n/file \(path)\nafter the file\n")
        // The lines after a refused one still go; the script learns of the refusal from the exit code,
        // as from `hush send --file` (it exited 0).
        let send = try bed.hush(bob, ["send", "alice", "--file", bed.root + "/missing.bin"])
        #expect(send.status != 0 && result.status == send.status && !result.crashed, "\(result) / send: \(send.status)")
        #expect(result.stdout.contains("not sent") && result.stdout.contains("missing.bin"), "\(result.stdout)")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").incoming.bodies.last == "after the file")
        let listed = try #require(try AttachmentTests.attachments(bed, alice).first)
        #expect(listed["fileName"] as? String == "from chat.bin", "\(listed)")
        try bed.succeed(alice, ["fetch", "\(listed["id"] as? Int ?? 0)", "--out", out])
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(bytes))
    }

    /// Without a terminal, a line longer than a message may be is an error that
    /// stops the chat (non-zero exit); it is never sent cut. Lines before it are sent.
    @Test func lineModeRefusesATooLongLineWithAnError() throws {
        let bed = try Testbed("chat-too-long")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let long = String(repeating: "x", count: 40_000)
        let result = try bed.hush(bob, ["chat", "alice"], stdin: "before\n\(long)\nafter\n")
        #expect(result.status == 1 && !result.crashed, "\(result.status) \(result.stderr)")
        #expect(result.stderr.contains("line too long: 40000 bytes, at most 32768"), "\(result.stderr)")
        try bed.sync(alice)
        #expect(try bed.history(alice, with: "bob").incoming.bodies == ["before"])
    }

    /// Without a terminal, the chat exits as `hush send` would: 25 when a
    /// message is only queued because the relay cannot be reached.
    @Test func lineModeExits25WhenTheRelayIsDown() throws {
        let bed = try Testbed("chat-queued")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let sent = try bed.hush(bob, ["chat", "alice"], stdin: "while the relay is up\n")
        #expect(sent.status == 0, "\(sent.status) \(sent.stderr)")
        bed.relay.kill()
        let queued = try bed.hush(bob, ["chat", "alice"], stdin: "while the relay is down\n")
        #expect(queued.status == 25 && !queued.crashed, "\(queued.status) \(queued.stderr)")
        #expect(queued.stderr.contains("stay in the outbox"), "\(queued.stderr)")
    }
}
