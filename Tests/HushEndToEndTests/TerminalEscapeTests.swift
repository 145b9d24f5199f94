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
}
