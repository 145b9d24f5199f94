import Testing
@testable import HushTerminal

@Suite struct ChatLayoutTests {
    @Test func headerOnTopInputAtTheBottomAndTheNewestLinesBetween() {
        var transcript = ChatTranscript()
        for index in 1...10 { transcript.append("line \(index)") }
        let layout = ChatLayout(columns: 20, lines: 5, header: "bob · online", transcript: transcript, prompt: "> ", input: "hi")
        #expect(layout.rows == ["bob · online", "line 8", "line 9", "line 10", "> hi"])
        #expect(layout.cursorColumn == 4)
    }

    @Test func aShortTranscriptSitsAboveTheInputLine() {
        var transcript = ChatTranscript()
        transcript.append("only")
        let layout = ChatLayout(columns: 20, lines: 5, header: "h", transcript: transcript, prompt: "> ", input: "")
        #expect(layout.rows == ["h", "", "", "only", "> "])
    }

    @Test func longLinesWrapAndLineBreaksStartRows() {
        var transcript = ChatTranscript()
        transcript.append("0123456789abcdefghij\nnext")
        let layout = ChatLayout(columns: 10, lines: 6, header: "h", transcript: transcript, prompt: "> ", input: "")
        #expect(layout.rows == ["h", "", "0123456789", "abcdefghij", "next", "> "])
    }

    @Test func theCursorFollowsWideCharactersAndALongInputShowsItsEnd() {
        let wide = ChatLayout(columns: 20, lines: 3, header: "h", transcript: ChatTranscript(), prompt: "> ", input: "日本👍")
        #expect(wide.cursorColumn == 2 + 6)
        let long = ChatLayout(columns: 12, lines: 3, header: "h", transcript: ChatTranscript(), prompt: "> ", input: "abcdefghijklmnop")
        #expect(long.rows.last == "> …ijklmnop")
        #expect(long.cursorColumn < 12)
    }

    @Test func aPastedLineBreakShowsAsAReturnSign() {
        let layout = ChatLayout(columns: 20, lines: 3, header: "h", transcript: ChatTranscript(), prompt: "> ", input: "a\nb")
        #expect(layout.rows.last == "> a↵b")
    }

    @Test func replacingAKeyedLineChangesItWhereItStands() {
        var transcript = ChatTranscript()
        transcript.append("you: hi ✓", key: "m1")
        transcript.append("bob: hello")
        let replaced = transcript.replace(key: "m1", with: "you: hi ✓✓ read")
        #expect(replaced)
        #expect(transcript.entries.map(\.text) == ["you: hi ✓✓ read", "bob: hello"])
        let unknown = transcript.replace(key: "unknown", with: "x")
        #expect(!unknown)
    }

    @Test func theOldestLinesGoBeyondTheCapacity() {
        var transcript = ChatTranscript(capacity: 2)
        for text in ["a", "b", "c"] { transcript.append(text) }
        #expect(transcript.entries.map(\.text) == ["b", "c"])
    }
}
