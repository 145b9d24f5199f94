/// What the person at the keyboard did.
public enum InputEvent: Sendable, Equatable {
    /// A key changed the line being typed (drives "typing…" indicators).
    case edited
    /// Enter was pressed on this line.
    case submitted(String)
    /// Ctrl-D on an empty line, or the end of input.
    case finished
}

/// A minimal line editor for raw-mode input: printable UTF-8, backspace,
/// Ctrl-U (clear line), Enter, Ctrl-D. Pure state, fed one byte at a time,
/// so it is testable without a terminal.
public struct LineEditor: Sendable {
    public private(set) var line: [UInt8] = []
    /// Inside an escape sequence (arrow keys and the like), which is ignored.
    private var escape: EscapeState = .none

    private enum EscapeState: Sendable { case none, started, csi }

    public init() {}

    public var text: String { String(decoding: line, as: UTF8.self) }

    public mutating func feed(_ byte: UInt8) -> InputEvent? {
        switch escape {
        case .started:
            escape = byte == UInt8(ascii: "[") ? .csi : .none
            return nil
        case .csi:
            // A control sequence ends with a byte in 0x40...0x7E.
            if (0x40...0x7e).contains(byte) { escape = .none }
            return nil
        case .none:
            break
        }
        switch byte {
        case 0x1b:
            escape = .started
            return nil
        case 0x0d, 0x0a: // Enter
            let submitted = text
            line.removeAll()
            return .submitted(submitted)
        case 0x04: // Ctrl-D
            return line.isEmpty ? .finished : nil
        case 0x7f, 0x08: // Backspace: drop a whole UTF-8 scalar.
            guard !line.isEmpty else { return nil }
            // Pop continuation bytes (10xxxxxx) until the scalar's lead byte is gone too.
            while let removed = line.popLast(), removed & 0xC0 == 0x80 {}
            return .edited
        case 0x15: // Ctrl-U
            guard !line.isEmpty else { return nil }
            line.removeAll()
            return .edited
        case 0x00..<0x20:
            return nil
        default:
            guard line.count < 8192 else { return nil }
            line.append(byte)
            return .edited
        }
    }
}
