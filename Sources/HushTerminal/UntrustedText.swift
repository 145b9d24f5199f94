/// Text someone else wrote, made safe to put on a terminal: an escape
/// sequence in a message could otherwise move the cursor, rewrite the
/// screen or set the window title. Control characters become U+FFFD, tabs
/// become spaces, and line breaks are kept (as "\n") or joined.
public enum UntrustedText {
    public static func sanitized(_ text: String, keepingLineBreaks: Bool = true) -> String {
        var result = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\r", "\n":
                // CR LF is one break.
                if scalar == "\n" && previousWasCR { continue }
                result.append(keepingLineBreaks ? "\n" : " ")
            case "\t":
                result.append(contentsOf: "    ".unicodeScalars)
            default:
                let category = scalar.properties.generalCategory
                let isBidiOverride = (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
                result.append(category == .control || isBidiOverride ? "\u{FFFD}" : scalar)
            }
        }
        return String(result)
    }
}
