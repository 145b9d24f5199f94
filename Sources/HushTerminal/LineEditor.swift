/// What the person at the keyboard did.
public enum InputEvent: Sendable, Equatable {
    /// A key changed the line being typed (drives "typing…" indicators).
    case edited
    /// Enter was pressed on this line (a pasted line break is kept in it instead).
    case submitted(String)
    /// Enter was pressed on a line longer than `LineEditor.maximumBytes`: it is
    /// dropped whole (never sent cut), and `bytes` says how long it was.
    case tooLong(bytes: Int)
    /// Ctrl-D on an empty line, or the end of input.
    case finished
    /// Ctrl-C: leave now, whatever is typed.
    case interrupted
    /// Page Up / Page Down: scroll the transcript by a screenful.
    case pageUp
    case pageDown
}

/// A minimal line editor for raw-mode input: printable UTF-8, backspace
/// (a whole character, emoji included), Ctrl-U (clear line), Enter, Ctrl-D,
/// Ctrl-C, Page Up/Down, and bracketed paste (a pasted text's line breaks stay in the line
/// instead of sending each line on its own). Pure state, fed one byte at a
/// time, so it is testable without a terminal.
public struct LineEditor: Sendable {
    public private(set) var line: [UInt8] = []
    /// Inside an escape sequence (arrow keys and the like), which is ignored
    /// unless it starts or ends a bracketed paste.
    private var escape: EscapeState = .none
    private var parameters: [UInt8] = []
    /// Between ESC [ 200 ~ and ESC [ 201 ~.
    public private(set) var pasting = false

    /// Bytes typed or pasted past `maximumBytes`: not kept, only counted, so
    /// Enter can say how long the line was instead of sending it cut.
    public private(set) var excessBytes = 0

    /// The longest line: the protocol's limit on a message's text
    /// (`ContentLimits.maxTextLength`, which HushCLITests checks it equals).
    public static let maximumBytes = 32_768

    /// How many bytes the line has, the part past the limit included.
    public var byteCount: Int { line.count + excessBytes }
    public var isTooLong: Bool { excessBytes > 0 }

    private enum EscapeState: Sendable { case none, started, csi }

    public init() {}

    public var text: String { String(decoding: line, as: UTF8.self) }

    public mutating func feed(_ byte: UInt8) -> InputEvent? {
        switch escape {
        case .started:
            escape = byte == UInt8(ascii: "[") ? .csi : .none
            parameters.removeAll()
            return nil
        case .csi:
            // A control sequence ends with a byte in 0x40...0x7E.
            guard (0x40...0x7e).contains(byte) else {
                if parameters.count < 16 { parameters.append(byte) }
                return nil
            }
            escape = .none
            if byte == UInt8(ascii: "~") {
                switch String(decoding: parameters, as: UTF8.self) {
                case "200": pasting = true
                case "201": pasting = false
                case "5" where !pasting: return .pageUp
                case "6" where !pasting: return .pageDown
                default: break
                }
            }
            return nil
        case .none:
            break
        }
        switch byte {
        case 0x1b:
            escape = .started
            return nil
        case 0x0d where pasting, 0x0a where pasting:
            // A pasted line break: CR LF (or LF alone) is one.
            if byte == 0x0a, line.last == 0x0a { return nil }
            return append(0x0a)
        case 0x0d, 0x0a: // Enter
            if isTooLong {
                let bytes = byteCount
                line.removeAll()
                excessBytes = 0
                return .tooLong(bytes: bytes)
            }
            let submitted = text
            line.removeAll()
            return .submitted(submitted)
        case 0x03: // Ctrl-C (the terminal's ISIG is off, so it arrives as a byte)
            return .interrupted
        case 0x04: // Ctrl-D
            return line.isEmpty ? .finished : nil
        case 0x7f, 0x08: // Backspace: drop the last whole character.
            if isTooLong {
                // What did not fit is gone: the line is back to what is kept.
                excessBytes = 0
                return .edited
            }
            guard !line.isEmpty else { return nil }
            var characters = text
            characters.removeLast()
            line = Array(characters.utf8)
            return .edited
        case 0x15: // Ctrl-U
            guard !line.isEmpty || isTooLong else { return nil }
            line.removeAll()
            excessBytes = 0
            return .edited
        case 0x09 where pasting:
            return append(UInt8(ascii: " "))
        case 0x00..<0x20:
            return nil
        default:
            return append(byte)
        }
    }

    private mutating func append(_ byte: UInt8) -> InputEvent? {
        guard !isTooLong, line.count < LineEditor.maximumBytes else {
            if !isTooLong {
                // The first byte past the limit: a character begun before it does
                // not fit either, so the kept line ends on a whole character.
                var start = line.count
                while start > 0, line[start - 1] & 0xC0 == 0x80 { start -= 1 }
                if start > 0, line[start - 1] >= 0xC0 {
                    let lead = line[start - 1]
                    let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
                    if line.count - (start - 1) < length {
                        excessBytes += line.count - (start - 1)
                        line.removeSubrange((start - 1)...)
                    }
                }
            }
            excessBytes += 1
            return .edited
        }
        line.append(byte)
        return .edited
    }
}
