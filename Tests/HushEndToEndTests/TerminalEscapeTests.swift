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
}
