import Foundation
import Testing
import HushKit
@testable import hush

@Suite struct ChatInputTests {
    @Test func plainTextIsAMessageAndBlankIsNothing() {
        #expect(ChatInput(parsing: "  hello there ") == .message("hello there"))
        #expect(ChatInput(parsing: "   ") == .nothing)
    }

    @Test func commandsAreRecognisedAndNeverMessages() {
        #expect(ChatInput(parsing: "/help") == .help)
        #expect(ChatInput(parsing: "/quit") == .quit)
        #expect(ChatInput(parsing: "/verify") == .verify(code: nil))
        #expect(ChatInput(parsing: "/verify 12345 67890") == .verify(code: "12345 67890"))
        #expect(ChatInput(parsing: "/history") == .history(count: ChatInput.defaultHistoryCount))
        #expect(ChatInput(parsing: "/history 5") == .history(count: 5))
        #expect(ChatInput(parsing: "/search lunch plans") == .search("lunch plans"))
        #expect(ChatInput(parsing: "/file /tmp/a photo.png") == .file(path: "/tmp/a photo.png"))
        #expect(ChatInput(parsing: "/reply 42 see you at 8") == .reply(id: 42, text: "see you at 8"))
        #expect(ChatInput(parsing: "/react 42 👍") == .react(id: 42, emoji: "👍"))
        #expect(ChatInput(parsing: "/react 7 👩‍👩‍👧") == .react(id: 7, emoji: "👩‍👩‍👧"))
        #expect(ChatInput(parsing: "/unreact 42") == .react(id: 42, emoji: nil))
        #expect(ChatInput(parsing: "/edit 42 see you at 9") == .edit(id: 42, text: "see you at 9"))
        #expect(ChatInput(parsing: "/edit last see you at 9") == .edit(id: nil, text: "see you at 9"))
        #expect(ChatInput(parsing: "/reply [42] as shown") == .reply(id: 42, text: "as shown"))
        #expect(ChatInput(parsing: "/react LAST 👍") == .react(id: nil, emoji: "👍"))
        #expect(ChatInput(parsing: "/unreact last") == .react(id: nil, emoji: nil))
        #expect(ChatInput(parsing: "/fetch") == .fetch(id: nil))
        #expect(ChatInput(parsing: "/fetch 7") == .fetch(id: 7))
        #expect(ChatInput(parsing: "/fetch [7]") == .fetch(id: 7))
        #expect(ChatInput(parsing: "/delete 42") == .delete(id: 42, forEveryone: false))
        #expect(ChatInput(parsing: "/delete! 42") == .delete(id: 42, forEveryone: true))
        #expect(ChatInput(parsing: "/delete [42]") == .delete(id: 42, forEveryone: false))
        #expect(ChatInput(parsing: "/disappear 1d") == .disappear(seconds: 86_400))
        #expect(ChatInput(parsing: "/disappear off") == .disappear(seconds: 0))
        if let home = ProcessInfo.processInfo.environment["HOME"] {
            #expect(ChatInput(parsing: "/file ~/summit.jpg") == .file(path: home + "/summit.jpg"))
        }
    }

    /// A command being typed sends no typing indicator; a message, or a line
    /// that starts with `//` (sent with one slash), does.
    @Test func typingACommandIsNotTypingAMessage() {
        #expect(ChatInput.isCommand("/") && ChatInput.isCommand("  /hel") && ChatInput.isCommand("/react 3 👍"))
        #expect(!ChatInput.isCommand("") && !ChatInput.isCommand("hello /x") && !ChatInput.isCommand("//not a command"))
    }

    @Test func aDoubleSlashSendsTheLineWithOneSlash() {
        #expect(ChatInput(parsing: "//shrug") == .message("/shrug"))
        #expect(ChatInput(parsing: "//") == .message("/"))
    }

    @Test func unknownOrMisusedCommandsAreErrorsThatSayWhatToDo() {
        guard case let .invalid(unknown) = ChatInput(parsing: "/frobnicate now") else {
            Issue.record("an unknown command was not refused")
            return
        }
        #expect(unknown.contains("/frobnicate") && unknown.contains("/help") && unknown.contains("//"))
        for line in ["/history zero", "/history 0", "/history 100000", "/search", "/search   ", "/file", "/file  ",
                     "/reply", "/reply 42", "/reply x hello", "/reply -3 hello", "/react", "/react 42", "/react x 👍",
                     "/react 42 👍 extra", "/unreact", "/unreact x",
                     "/edit", "/edit 42", "/edit x hello", "/edit [] hello", "/fetch x", "/fetch 0", "/fetch [x]",
                     "/delete", "/delete x", "/delete! 0", "/delete last", "/delete! last",
                     "/disappear", "/disappear 2d", "/disappear 60"] {
            guard case .invalid = ChatInput(parsing: line) else {
                Issue.record("\(line) was accepted")
                continue
            }
        }
    }

    /// /help lists exactly what the parser knows: every listed command parses
    /// as a command (not a message, not an unknown one).
    @Test func theHelpListsOnlyCommandsThatExist() {
        for (usage, _) in ChatInput.commandHelp where !usage.hasPrefix("//") {
            let example = usage.replacingOccurrences(of: "[DIGITS]", with: "")
                .replacingOccurrences(of: "[N]", with: "").replacingOccurrences(of: "ID", with: "5")
                .replacingOccurrences(of: "EMOJI", with: "👍").replacingOccurrences(of: "TEXT", with: "hi")
                .replacingOccurrences(of: "PATH", with: "/tmp/x").replacingOccurrences(of: "1h|1d|1w|off", with: "1d")
            switch ChatInput(parsing: example) {
            case .message, .invalid, .nothing: Issue.record("\(usage) from /help does not parse as a command")
            default: break
            }
        }
    }
    /// "last" (/reply, /react, /edit, /fetch) never names a deleted message
    /// or a timer change: after the merge of edits and deletion, a tombstone
    /// was the "last" message of its direction and /edit last or /react last
    /// aimed at it.
    @Test func lastNeverNamesADeletedMessageOrATimerChange() {
        for use in [ChatSession.HandleUse.received, .ownText, .receivedFile] {
            for direction in [Message.Direction.incoming, .outgoing] {
                for kind in [Message.Kind.text, .file, .timerChange] {
                    #expect(!ChatSession.suits(direction: direction, kind: kind, isDeleted: true, use))
                }
                #expect(!ChatSession.suits(direction: direction, kind: .timerChange, isDeleted: false, use))
            }
        }
        #expect(ChatSession.suits(direction: .incoming, kind: .text, isDeleted: false, .received))
        #expect(ChatSession.suits(direction: .incoming, kind: .file, isDeleted: false, .received))
        #expect(ChatSession.suits(direction: .outgoing, kind: .text, isDeleted: false, .ownText))
        #expect(!ChatSession.suits(direction: .incoming, kind: .text, isDeleted: false, .ownText))
        #expect(ChatSession.suits(direction: .incoming, kind: .file, isDeleted: false, .receivedFile))
        #expect(!ChatSession.suits(direction: .incoming, kind: .text, isDeleted: false, .receivedFile))
    }
}
