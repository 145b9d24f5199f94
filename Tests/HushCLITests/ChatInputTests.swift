import Foundation
import Testing
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
        if let home = ProcessInfo.processInfo.environment["HOME"] {
            #expect(ChatInput(parsing: "/file ~/summit.jpg") == .file(path: home + "/summit.jpg"))
        }
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
        for line in ["/history zero", "/history 0", "/history 100000", "/search", "/search   ", "/file", "/file  "] {
            guard case .invalid = ChatInput(parsing: line) else {
                Issue.record("\(line) was accepted")
                continue
            }
        }
    }
}
