import Testing
@testable import hush

/// The last message's line in `hush chats`: the same with or without the
/// shortcut for printable ASCII.
@Suite struct PreviewTests {
    /// What `Presentation.preview` wrote before the shortcut, for every text.
    static func reference(_ text: String, length: Int) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count <= length ? line : String(line.prefix(length - 1)) + "…"
    }

    @Test func previewsReadAsBefore() {
        let texts = ["", " ", "hello", "see you at eight", String(repeating: "a", count: 59), String(repeating: "b", count: 60),
                     String(repeating: "c", count: 61), String(repeating: "word ", count: 40), "~!@#$%^&*()_+`{}|:\"<>?",
                     "two\nlines", "\n\nleading and trailing\n\n", "tab\there", "crlf\r\nline", "café au lait", "👍🏽 thumbs",
                     String(repeating: "é", count: 70), "\u{7f}delete", "line\u{2028}separator"]
        for text in texts {
            for length in [1, 2, 10, 60, 100] {
                #expect(Presentation.preview(text, length: length) == Self.reference(text, length: length), "\(text.debugDescription) at \(length)")
            }
        }
    }
}
