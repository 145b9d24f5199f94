import Foundation
import Testing
@testable import hush

/// What `hush export` makes of names and texts a peer chose: a file name
/// never leaves the export folder, and a text never breaks out of its
/// Markdown paragraph (ExportTests checks the same end to end).
@Suite struct ExportFormatTests {
    @Test func aPeersFileNameStaysInsideFiles() {
        let root = URL(fileURLWithPath: "/export")
        for hostile in ["../../etc/passwd", "..", ".", "/etc/passwd", "..\\..\\x", ".hidden", "a/../../b", "", "\u{1B}[2J/..", "名前.txt"] {
            let name = ExportNames.file(id: 7, peerName: hostile)
            #expect(name.hasPrefix("files/7-") && !name.dropFirst(6).contains("/"), "\(hostile.debugDescription) → \(name)")
            #expect(root.appendingPathComponent(name).standardized.path.hasPrefix("/export/files/7-"), "\(hostile.debugDescription) → \(name)")
            #expect(name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 }, "\(name.debugDescription)")
        }
        #expect(ExportNames.file(id: 3, peerName: "summit photo.jpg") == "files/3-summit_photo.jpg")
        #expect(ExportNames.file(id: 3, peerName: "../../etc/passwd") == "files/3-_.._etc_passwd")
    }

    @Test func conversationFilesAreSafeAndUnique() {
        let conversations = ["bob", "bob", "../x", "b/o/b"].map {
            ExportedConversation(kind: .contact, name: $0, contact: nil, group: nil, messages: [])
        } + [ExportedConversation(kind: .group, name: "bob", contact: nil, group: nil, messages: [])]
        #expect(ExportNames.markdownFiles(conversations) == ["contact-bob.md", "contact-bob-2.md", "contact-_x.md", "contact-b_o_b.md",
                                                             "group-bob.md"])
    }

    @Test func aPeersTextCannotBreakOutOfItsParagraph() {
        #expect(MarkdownExport.text("plain words, it's fine.") == "plain words, it's fine.")
        #expect(MarkdownExport.text("# heading") == "\\# heading")
        #expect(MarkdownExport.text("[link](http://x) ![img](y) <script>") == "\\[link\\](http://x) \\!\\[img\\](y) \\<script\\>")
        #expect(MarkdownExport.text("*bold* _it_ `code` ~~s~~ a|b &amp;") == "\\*bold\\* \\_it\\_ \\`code\\` \\~\\~s\\~\\~ a\\|b \\&amp;")
        // Line starts: lists, quotes, rules, setext underlines, ordered lists.
        #expect(MarkdownExport.text("a\n- item\n+ item\n> quote\n===\n1. first\n12) second") ==
                "a\\\n\\- item\\\n\\+ item\\\n\\> quote\\\n\\===\\\n1\\. first\\\n12\\) second")
        // A blank line (a new paragraph) and an indented line (a code block) are gone; a forged line starts escaped.
        #expect(MarkdownExport.text("one\n\n    code\n**mallory** (2000-01-01 00:00 UTC): forged") ==
                "one\\\ncode\\\n\\*\\*mallory\\*\\* (2000-01-01 00:00 UTC): forged")
        // Escape sequences are defused by the sanitizer first.
        #expect(!MarkdownExport.text("\u{1B}]0;owned\u{07}\u{1B}[2J\u{202E}").unicodeScalars.contains { [0x1B, 0x07, 0x202E].contains($0.value) })
    }
}
