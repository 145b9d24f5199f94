import Synchronization
import Testing
@testable import HushTerminal

@Suite struct ChatScreenTests {
    /// A paste (one read of many bytes) repaints the screen once, not once per
    /// byte, and says once that the line changed (the chat reads the whole line
    /// and tells the typing state at each: per byte, a 32 KiB paste took tens of seconds).
    @Test func aBatchOfInputIsPaintedOnce() {
        let writes = Mutex(0)
        let screen = ChatScreen(prompt: "> ", interactive: true, output: { _ in writes.withLock { $0 += 1 } })
        screen.open()
        let afterOpen = writes.withLock { $0 }
        let events = screen.feed(Array(String(repeating: "pasted text ", count: 200).utf8))
        #expect(events == [.edited])
        #expect(writes.withLock { $0 } == afterOpen + 1)
        #expect(screen.feed(Array("\r".utf8)) == [.submitted(String(repeating: "pasted text ", count: 200))])
        screen.close()
    }

    /// Opening a chat of 50 long messages wrapped the whole transcript at every
    /// message shown (24 s of CPU for 50 of 30 KB, a walkthrough); only the rows
    /// that show, and those scrolled back, are wrapped now. The layout is the
    /// same as wrapping everything: checked against it here, scrolled or not.
    @Test func theLayoutWrapsOnlyWhatShowsAndMatchesTheWholeWrap() {
        var transcript = ChatTranscript()
        for index in 0..<40 { transcript.append("message \(index) " + String(repeating: "word ", count: index * 7) + "\nsecond line \(index)") }
        for scrollback in [0, 5, 30, 10_000] {
            let layout = ChatLayout(columns: 37, lines: 12, header: "h", transcript: transcript, prompt: "> ", input: "x", scrollback: scrollback)
            var whole: [String] = []
            for entry in transcript.entries {
                for line in entry.text.split(separator: "\n", omittingEmptySubsequences: false) { whole += TerminalWidth.wrap(String(line), width: 37) }
            }
            let room = 10, back = min(scrollback, whole.count - room)
            var expected = Array(whole[..<(whole.count - back)].suffix(room))
            if back > 0 {
                #expect(layout.rows[room].contains("\(back) newer line"), "scrollback \(scrollback): \(layout.rows[room])")
                expected[expected.count - 1] = layout.rows[room]
            }
            #expect(layout.scrollback == back, "scrollback \(scrollback)")
            #expect(Array(layout.rows[1...room]) == expected, "scrollback \(scrollback)")
        }
    }
}
