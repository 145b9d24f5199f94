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

    /// A terminal narrower than 10 columns: every row fits it, the prompt
    /// gives way to the cursor, and the cursor stays on the screen (a floor
    /// of 10 columns once wrapped every row, the input line too).
    @Test func aVeryNarrowTerminalGetsRowsThatFitIt() {
        var transcript = ChatTranscript()
        transcript.append("a message wider than the screen")
        for columns in 2...9 {
            let layout = ChatLayout(columns: columns, lines: 6, header: "bob · online", transcript: transcript, prompt: "bob> ",
                                    input: "typing a long line")
            #expect(layout.rows.allSatisfy { TerminalWidth.columns(of: $0) <= columns }, "\(columns): \(layout.rows)")
            #expect(layout.cursorColumn < columns, "\(columns): \(layout.cursorColumn)")
        }
        let six = ChatLayout(columns: 6, lines: 3, header: "h", transcript: ChatTranscript(), prompt: "bob> ", input: "hi")
        #expect(six.rows.last == "bo…hi", "\(six.rows)")
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

@Suite struct ChatLayoutScrollTests {
    static func transcript(_ count: Int) -> ChatTranscript {
        var transcript = ChatTranscript()
        for index in 1...count { transcript.append("line \(index)") }
        return transcript
    }

    @Test func scrollingUpShowsOlderRowsAndSaysHowToComeBack() {
        let layout = ChatLayout(columns: 40, lines: 5, header: "h", transcript: Self.transcript(10), prompt: "> ", input: "",
                                scrollback: 3)
        #expect(layout.rows == ["h", "line 5", "line 6", "── 3 newer lines below: Page Down ──", "> "])
        #expect(layout.scrollback == 3)
    }

    @Test func scrollingStopsAtTheOldestRowAndNeverBelowTheNewest() {
        let top = ChatLayout(columns: 40, lines: 5, header: "h", transcript: Self.transcript(10), prompt: "> ", input: "",
                             scrollback: 100)
        #expect(top.scrollback == 7)
        #expect(top.rows[1] == "line 1")
        let bottom = ChatLayout(columns: 40, lines: 5, header: "h", transcript: Self.transcript(10), prompt: "> ", input: "",
                                scrollback: -4)
        #expect(bottom.scrollback == 0 && bottom.rows[3] == "line 10")
    }

    @Test func pageKeysAreEventsButNotInsideAPaste() {
        var editor = LineEditor()
        #expect(Array("\u{1B}[5~".utf8).compactMap { editor.feed($0) } == [.pageUp])
        #expect(Array("\u{1B}[6~".utf8).compactMap { editor.feed($0) } == [.pageDown])
        #expect(Array("\u{1B}[200~\u{1B}[5~x\u{1B}[201~".utf8).compactMap { editor.feed($0) } == [.edited])
    }
}
