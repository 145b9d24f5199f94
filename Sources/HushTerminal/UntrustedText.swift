/// Text someone else chose (a message, a group's name, a file name, a relay's
/// reason), made safe to put on a terminal: every such string goes through
/// here on its way to the screen. An escape sequence could otherwise move the
/// cursor, rewrite the screen or set the window title, and an invisible
/// format character could reorder what is shown (a right-to-left override
/// turns `photo‮gpj.exe` into what reads as `photoexe.jpg`).
///
/// Control characters (C0, DEL, C1) and format characters (Unicode category
/// Cf: the bidirectional overrides, embeddings and isolates U+202A–U+202E and
/// U+2066–U+2069, the marks U+200E/U+200F/U+061C, invisible separators, tags
/// …) become U+FFFD, so their presence shows. The zero-width joiner and
/// non-joiner stay: emoji sequences and Persian or Indic words need them and
/// they reorder nothing. Tabs become spaces; line breaks (including U+2028
/// and U+2029) are kept as "\n" or joined with a space.
public enum UntrustedText {
    public static func sanitized(_ text: String, keepingLineBreaks: Bool = true) -> String {
        // Printable ASCII (most text) has nothing to change: returned as it is
        // without the look-up of each scalar's category, which was a fifth of
        // `hush chats` through the daemon on 2,000 conversations (perf).
        if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return text }
        var result = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            // Printable ASCII is kept: no category to look up (one non-ASCII
            // character, a summary's "…" say, no longer costs every other one that).
            if (0x20...0x7E).contains(scalar.value) {
                result.append(scalar)
                continue
            }
            switch scalar {
            case "\r", "\n", "\u{2028}", "\u{2029}":
                // CR LF is one break.
                if scalar == "\n" && previousWasCR { continue }
                result.append(keepingLineBreaks ? "\n" : " ")
            case "\t":
                result.append(contentsOf: "    ".unicodeScalars)
            case "\u{200C}", "\u{200D}":
                result.append(scalar)
            default:
                result.append(isNeutralised(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        return String(result)
    }

    /// On one line, cut to at most `length` characters (the last one "…").
    public static func oneLine(_ text: String, length: Int) -> String {
        let line = sanitized(text, keepingLineBreaks: false)
        return line.count > length ? String(line.prefix(max(length - 1, 0))) + "…" : line
    }

    /// Whether `scalar` is shown as U+FFFD.
    static func isNeutralised(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format: return true
        default: return false
        }
    }
}
