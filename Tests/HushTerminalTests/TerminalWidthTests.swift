import Testing
@testable import HushTerminal

@Suite struct TerminalWidthTests {
    @Test func wideCharactersAndEmojiTakeTwoColumnsAndMarksNone() {
        #expect(TerminalWidth.columns(of: "abc") == 3)
        #expect(TerminalWidth.columns(of: "日本") == 4)
        #expect(TerminalWidth.columns(of: "👍") == 2)
        #expect(TerminalWidth.columns(of: "e\u{301}") == 1)
        #expect(TerminalWidth.columns(of: "❤️") == 2)
    }

    @Test func colourSequencesTakeNoRoom() {
        #expect(TerminalWidth.columns(of: "\u{1B}[1mbob\u{1B}[0m") == 3)
    }

    @Test func wrappingNeverSplitsAWideCharacterAcrossRows() {
        let rows = TerminalWidth.wrap("ab日本", width: 5)
        #expect(rows == ["ab日", "本"])
        #expect(rows.allSatisfy { TerminalWidth.columns(of: $0) <= 5 })
    }

    @Test func tailKeepsTheEndInView() {
        #expect(TerminalWidth.tail("hello world", width: 6) == "…world")
        #expect(TerminalWidth.tail("short", width: 6) == "short")
        #expect(TerminalWidth.head("hello world", width: 6) == "hello…")
    }

    @Test func untrustedEscapeSequencesAreDefused() {
        let text = UntrustedText.sanitized("hi\u{1B}]0;owned\u{07}\r\nthere\tx")
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        #expect(text == "hi\u{FFFD}]0;owned\u{FFFD}\nthere    x")
        #expect(UntrustedText.sanitized("a\nb", keepingLineBreaks: false) == "a b")
    }

    /// Format characters reorder or hide text: bidi overrides, embeddings,
    /// isolates and marks, invisible separators. Joiners in emoji stay.
    @Test func formatCharactersAreDefusedAndJoinersKept() {
        for scalar: Unicode.Scalar in ["\u{202A}", "\u{202E}", "\u{2066}", "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}",
                                       "\u{200B}", "\u{2060}", "\u{FEFF}", "\u{E0041}", "\u{85}"] {
            #expect(UntrustedText.sanitized("a\(Character(scalar))b") == "a\u{FFFD}b", "U+\(String(scalar.value, radix: 16))")
        }
        #expect(UntrustedText.sanitized("👩\u{200D}💻") == "👩\u{200D}💻")
        #expect(UntrustedText.sanitized("a\u{2028}b", keepingLineBreaks: false) == "a b")
        #expect(UntrustedText.oneLine("photo\u{202E}gpj.exe", length: 8) == "photo\u{FFFD}g…")
    }
}
