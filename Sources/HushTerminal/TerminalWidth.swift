/// How many terminal columns text takes. A terminal draws East Asian wide
/// characters and emoji in two cells and combining marks in none; counting
/// Characters instead would put the cursor in the wrong place and wrap
/// lines early or late. glibc's wcwidth would need a UTF-8 locale the user
/// may not have set, so the widths are decided here, the way terminals
/// (xterm, tmux, VTE) draw them for the common cases.
public enum TerminalWidth {
    /// The columns of one grapheme cluster.
    public static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x20 || (0x7f..<0xa0).contains(first.value) { return 0 }
        // An emoji presentation selector, or an emoji drawn as such by default.
        if scalars.contains(where: { $0.value == 0xFE0F }) || scalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        if isWide(first) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    /// The columns of `text`, skipping terminal control sequences (ESC [ … final byte).
    public static func columns(of text: String) -> Int {
        var total = 0
        var sequence = ControlSequenceSkipper()
        for character in text where !sequence.skips(character) {
            total += columns(of: character)
        }
        return total
    }

    /// Splits `text` into rows of at most `width` columns; a character that does
    /// not fit is carried to the next row whole. Control sequences stay in place
    /// and take no room. An empty text is one empty row.
    public static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(width, 2)
        var rows: [String] = []
        var row = ""
        var used = 0
        var sequence = ControlSequenceSkipper()
        for character in text {
            if sequence.skips(character) {
                row.append(character)
                continue
            }
            let cells = columns(of: character)
            if used + cells > width {
                rows.append(row)
                row = ""
                used = 0
            }
            row.append(character)
            used += cells
        }
        rows.append(row)
        return rows
    }

    /// The end of `text` that fits in `width` columns, with "…" in front when cut.
    public static func tail(_ text: String, width: Int) -> String {
        guard columns(of: text) > width else { return text }
        var kept: [Character] = []
        var used = 1 // the ellipsis
        for character in text.reversed() {
            let cells = columns(of: character)
            if used + cells > width { break }
            kept.append(character)
            used += cells
        }
        return "…" + String(kept.reversed())
    }

    /// The start of `text` that fits in `width` columns, with "…" at the end when cut.
    public static func head(_ text: String, width: Int) -> String {
        guard columns(of: text) > width else { return text }
        var kept = ""
        var used = 1
        var sequence = ControlSequenceSkipper()
        for character in text {
            if sequence.skips(character) {
                kept.append(character)
                continue
            }
            let cells = columns(of: character)
            if used + cells > width { break }
            kept.append(character)
            used += cells
        }
        return kept + "…"
    }

    /// East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, W and F, abridged).
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
             0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

/// Recognises the control sequences this module itself writes into text
/// (colour: ESC [ parameters final-byte), so they count as no columns.
struct ControlSequenceSkipper {
    private enum State { case text, escape, parameters }
    private var state = State.text

    /// Whether `character` belongs to a control sequence.
    mutating func skips(_ character: Character) -> Bool {
        switch state {
        case .text:
            guard character == "\u{1B}" else { return false }
            state = .escape
            return true
        case .escape:
            state = character == "[" ? .parameters : .text
            return true
        case .parameters:
            if let value = character.unicodeScalars.first?.value, (0x40...0x7E).contains(value) { state = .text }
            return true
        }
    }
}
