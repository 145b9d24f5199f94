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

@Suite struct LineEditorPasteAndKeysTests {
    private func type(_ text: String, into editor: inout LineEditor) -> [InputEvent] {
        text.utf8.compactMap { editor.feed($0) }
    }

    @Test func aBracketedPasteKeepsItsLineBreaksInTheLine() {
        var editor = LineEditor()
        let events = type("\u{1B}[200~first\r\nsecond\u{1B}[201~", into: &editor)
        #expect(!events.contains { if case .submitted = $0 { true } else { false } })
        #expect(editor.text == "first\nsecond")
        #expect(type("\r", into: &editor) == [.submitted("first\nsecond")])
    }

    @Test func enterOutsideAPasteStillSubmits() {
        var editor = LineEditor()
        _ = type("\u{1B}[200~a\u{1B}[201~", into: &editor)
        #expect(type("b\rc", into: &editor) == [.edited, .submitted("ab"), .edited])
    }

    @Test func ctrlCInterruptsEvenWithTextTyped() {
        var editor = LineEditor()
        _ = type("draft", into: &editor)
        #expect(editor.feed(0x03) == .interrupted)
    }

    @Test func backspaceRemovesAWholeEmojiWithItsModifiers() {
        var editor = LineEditor()
        _ = type("a👍🏽", into: &editor)
        #expect(editor.feed(0x7f) == .edited)
        #expect(editor.text == "a")
    }

    /// A line up to the protocol's limit is kept whole (a long paste is not cut at 8 KiB).
    @Test func aLineAtTheLimitIsSubmittedWhole() {
        var editor = LineEditor()
        let text = String(repeating: "é", count: LineEditor.maximumBytes / 2)
        let events = type(text + "\r", into: &editor)
        #expect(events.last == .submitted(text))
    }

    /// Past the limit nothing is sent cut: Enter says how long the line was.
    @Test func aLineOverTheLimitIsRejectedWholeWithItsLength() {
        var editor = LineEditor()
        let events = type(String(repeating: "a", count: LineEditor.maximumBytes + 10) + "\r", into: &editor)
        #expect(events.last == .tooLong(bytes: LineEditor.maximumBytes + 10))
        #expect(!events.contains { if case .submitted = $0 { return true } else { return false } })
        #expect(editor.text.isEmpty && !editor.isTooLong)
        #expect(type("next\r", into: &editor).last == .submitted("next"))
    }

    /// A character that straddles the limit is not kept in part (no U+FFFD at the end).
    @Test func theKeptPartNeverEndsInsideACharacter() {
        var editor = LineEditor()
        _ = type(String(repeating: "a", count: LineEditor.maximumBytes - 1) + "é and more", into: &editor)
        #expect(editor.isTooLong)
        #expect(editor.line.count == LineEditor.maximumBytes - 1)
        #expect(editor.byteCount == LineEditor.maximumBytes - 1 + "é and more".utf8.count)
        // Backspace drops what did not fit; the rest is whole characters.
        #expect(editor.feed(0x7f) == .edited)
        #expect(!editor.isTooLong && !editor.text.contains("\u{FFFD}"))
        #expect(editor.feed(0x0d) == .submitted(String(repeating: "a", count: LineEditor.maximumBytes - 1)))
    }
}
