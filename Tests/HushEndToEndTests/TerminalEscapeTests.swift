import Foundation
import Testing

/// A message is someone else's text: printed for a person (not `--json`), the
/// escape sequences in it must not reach the terminal, where they could set
/// the window title, clear or rewrite the screen. The tests run with
/// NO_COLOR, so any ESC in the output came from the message.
@Suite struct TerminalEscapeTests {
    @Test func historyChatsAndSearchPrintNoEscapeFromAMessage() throws {
        let bed = try Testbed("escapes")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.send(alice, to: "bob", "\u{1B}]0;owned\u{07}\u{1B}[2J marker text")
        try bed.sync(bob)
        for arguments in [["history", "alice", "--no-receipts"], ["chats"], ["search", "marker"]] {
            let output = try bed.succeed(bob, arguments).stdout
            #expect(output.contains("marker"), "\(arguments): \(output)")
            #expect(!output.contains("\u{1B}") && !output.contains("\u{07}"), "\(arguments) printed a control character from the message")
        }
        // The stored text itself is unchanged: --json gives it back as sent.
        #expect(try bed.history(bob, with: "alice").last?.body == "\u{1B}]0;owned\u{07}\u{1B}[2J marker text")
    }

    /// A line break (or a carriage return) in a contact's message does not
    /// start what reads as another history line: a walkthrough forged
    /// "[21] … you: FORGED ✓✓ read" in `hush history`. Lines after the first
    /// are indented, as `hush chat` shows them.
    @Test func aLineBreakInAMessageForgesNoHistoryLine() throws {
        let bed = try Testbed("forged-lines")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.send(bob, to: "alice", "line one\n[21] 2026-11-29 05:17  you: FORGED ✓✓ read\rover\r\nlast")
        try bed.sync(alice)
        let output = try bed.succeed(alice, ["history", "bob", "--no-receipts"]).stdout
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains { $0.hasPrefix("[") && $0.hasSuffix("bob: line one") }, "\(output)")
        #expect(lines.contains("      " + "[21] 2026-11-29 05:17  you: FORGED ✓✓ read"), "\(output)")
        #expect(lines.contains("      " + "over") && lines.contains("      " + "last"), "\(output)")
        #expect(!lines.contains { $0.hasPrefix("[21]") || $0.hasPrefix("over") }, "\(output)")
    }

    /// `hush listen` (text, not --json) prints each message as it arrives: the
    /// same defusing, and a line break in a message does not forge a line.
    @Test func listenPrintsNoEscapeFromAMessage() throws {
        let bed = try Testbed("escapes-listen")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let listener = try bed.spawn(bob, ["listen", "--timeout", "6"])
        #expect(listener.wait(timeout: 20) { $0.stdout.contains("connected to the relay") }, "listen never connected: \(listener.stderr)")
        try bed.send(alice, to: "bob", "\u{1B}]0;owned\u{07}\u{1B}[2J marker text\nbob: forged line")
        #expect(listener.wait(timeout: 10) { $0.stdout.contains("marker") }, "no message printed: \(listener.stdout)")
        let result = listener.finish(timeout: 20)
        #expect(result.status == 0 && !result.crashed, "\(result)")
        #expect(!result.stdout.contains("\u{1B}") && !result.stdout.contains("\u{07}"), "listen printed a control character from the message")
        #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("bob: forged") }, "a line break in the message started a line")
    }

    /// What a hostile peer may put in anything they name: an escape sequence
    /// (window title, clear screen), a right-to-left override and a
    /// left-to-right mark, an isolate and a zero-width space.
    static let hostile = "\u{1B}]0;owned\u{07}\u{1B}[2J\u{202E}\u{200F}\u{2067}\u{200B}"

    /// Whether `output` holds none of `hostile`'s characters (the tests run
    /// with NO_COLOR: any ESC came from the peer).
    static func isClean(_ output: String) -> Bool {
        !output.unicodeScalars.contains { [0x1B, 0x07, 0x202E, 0x200F, 0x2067, 0x200B].contains($0.value) }
    }

    /// A group's name is its admin's choice: `group list`, `group info`,
    /// `chats`, `history`, `chat` and `listen` print it defused for a member.
    @Test func aGroupNameReachesNoTerminalRaw() throws {
        let bed = try Testbed("escapes-group")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let name = "team" + Self.hostile + "x"
        try bed.succeed(alice, ["group", "create", name, "bob", "--json"])
        try bed.sync(bob)
        try bed.sync(bob)
        try bed.send(alice, to: name, "hello group")
        try bed.sync(bob)
        for arguments in [["group", "list"], ["group", "info", name], ["chats"], ["history", name, "--no-receipts"]] {
            let output = try bed.succeed(bob, arguments).stdout
            #expect(output.contains(arguments[0] == "history" ? "hello group" : "team"), "\(arguments): \(output)")
            #expect(Self.isClean(output), "`hush \(arguments.joined(separator: " "))` printed the group name raw: \(output.debugDescription)")
        }
        let chat = try bed.hush(bob, ["chat", name], stdin: "")
        #expect(chat.stdout.contains("hello group"), "\(chat)")
        #expect(Self.isClean(chat.stdout + chat.stderr), "`hush chat` printed the group name raw: \(chat.stdout.debugDescription)")
        let listener = try bed.spawn(bob, ["listen", "--timeout", "8"])
        #expect(listener.wait(timeout: 20) { $0.stdout.contains("connected to the relay") }, "listen never connected: \(listener.stderr)")
        try bed.send(alice, to: name, "live marker")
        #expect(listener.wait(timeout: 10) { $0.stdout.contains("live marker") }, "no message printed: \(listener.stdout)")
        let result = listener.finish(timeout: 20)
        #expect(Self.isClean(result.stdout), "`hush listen` printed the group name raw: \(result.stdout.debugDescription)")
    }

    /// A stranger's first message, shown by `hush requests`: the text after a
    /// right-to-left override would read backwards.
    @Test func aMessageRequestReachesNoTerminalRaw() throws {
        let bed = try Testbed("escapes-requests")
        let mallory = try bed.newUser("mallory"), bob = try bed.newUser("bob")
        try bed.addContact(mallory, bob)
        try bed.send(mallory, to: "bob", "invoice" + Self.hostile + "fdp.exe")
        try bed.sync(bob)
        let output = try bed.succeed(bob, ["requests"]).stdout
        #expect(output.contains("invoice"), "\(output)")
        #expect(Self.isClean(output), "`hush requests` printed the message raw: \(output.debugDescription)")
    }

    /// A received file's name is the sender's: `photo‮gpj.exe` must not show
    /// as `photoexe.jpg` in `hush attachments` or `hush fetch`.
    @Test func aFileNameReachesNoTerminalRaw() throws {
        let bed = try Testbed("escapes-attachments")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        let path = bed.root + "/photo" + Self.hostile + "gpj.exe"
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: path))
        try bed.succeed(alice, ["send", "bob", "--file", path])
        try bed.sync(bob)
        for arguments in [["attachments"], ["fetch", "1"], ["history", "alice", "--no-receipts"]] {
            let output = try bed.succeed(bob, arguments).stdout
            #expect(output.contains("photo"), "\(arguments): \(output)")
            #expect(Self.isClean(output), "`hush \(arguments.joined(separator: " "))` printed the file name raw: \(output.debugDescription)")
        }
    }
}
