import Testing
@testable import HushTerminal

@Suite struct LineEditorTests {
    private func type(_ text: String, into editor: inout LineEditor) -> [InputEvent] {
        text.utf8.compactMap { editor.feed($0) }
    }

    @Test func typingThenEnterSubmitsTheLine() {
        var editor = LineEditor()
        let events = type("héllo\r", into: &editor)
        #expect(events.last == .submitted("héllo"))
        #expect(events.dropLast().allSatisfy { $0 == .edited })
        #expect(editor.text.isEmpty)
    }

    @Test func backspaceRemovesAWholeScalar() {
        var editor = LineEditor()
        _ = type("aé", into: &editor)
        #expect(editor.feed(0x7f) == .edited)
        #expect(editor.text == "a")
        #expect(editor.feed(0x7f) == .edited)
        #expect(editor.feed(0x7f) == nil)
    }

    @Test func arrowKeysAreIgnored() {
        var editor = LineEditor()
        _ = type("a\u{1B}[Ab\u{1B}[1;5C", into: &editor)
        #expect(editor.text == "ab")
    }

    @Test func ctrlDFinishesOnlyOnAnEmptyLine() {
        var editor = LineEditor()
        _ = type("x", into: &editor)
        #expect(editor.feed(0x04) == nil)
        _ = editor.feed(0x15)
        #expect(editor.feed(0x04) == .finished)
    }
}
