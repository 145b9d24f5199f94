/// Just enough of a VT100/xterm to read back what a full-screen program
/// drew: cursor positioning, erasing, line feeds and scrolling, the
/// alternate screen, and characters two cells wide. Colour and other modes
/// are accepted and ignored. Its widths are its own (CJK blocks and emoji
/// pictographs are wide), not the program's, so a program that miscounts
/// them draws a garbled screen here too.
struct ScreenEmulator {
    let columns: Int
    let rows: Int
    private(set) var cells: [[String]]
    private(set) var cursorRow = 0
    private(set) var cursorColumn = 0
    /// Whether the alternate screen is on.
    private(set) var alternate = false
    private var pendingWrap = false

    init(columns: Int, rows: Int, output: String = "") {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
        feed(output)
    }

    /// Each row as text, without trailing blanks.
    var lines: [String] {
        cells.map { row in
            var text = row.joined()
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
    }

    mutating func feed(_ output: String) {
        var characters = Array(output)[...]
        while let character = characters.popFirst() {
            switch character {
            case "\u{1B}":
                guard let next = characters.popFirst() else { return }
                if next == "[" {
                    var parameters = ""
                    while let byte = characters.popFirst() {
                        if let value = byte.unicodeScalars.first?.value, (0x40...0x7E).contains(value) {
                            control(parameters, byte)
                            break
                        }
                        parameters.append(byte)
                    }
                } else if next == "]" {
                    // An operating system command runs to BEL or ESC \.
                    while let byte = characters.popFirst(), byte != "\u{07}", byte != "\u{1B}" {}
                }
            case "\r\n":
                cursorColumn = 0
                lineFeed()
            case "\r":
                cursorColumn = 0
                pendingWrap = false
            case "\n":
                lineFeed()
            case "\u{08}":
                cursorColumn = max(0, cursorColumn - 1)
                pendingWrap = false
            default:
                if let value = character.unicodeScalars.first?.value, value < 0x20 || value == 0x7F { continue }
                put(character)
            }
        }
    }

    private mutating func put(_ character: Character) {
        let width = Self.width(of: character)
        if pendingWrap || cursorColumn + width > columns {
            cursorColumn = 0
            lineFeed()
        }
        cells[cursorRow][cursorColumn] = String(character)
        if width == 2 { cells[cursorRow][cursorColumn + 1] = "" }
        cursorColumn += width
        if cursorColumn >= columns {
            cursorColumn = columns - 1
            pendingWrap = true
        }
    }

    private mutating func lineFeed() {
        pendingWrap = false
        if cursorRow == rows - 1 {
            cells.removeFirst()
            cells.append(Array(repeating: " ", count: columns))
        } else {
            cursorRow += 1
        }
    }

    private mutating func control(_ parameters: String, _ final: Character) {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func number(_ index: Int, _ fallback: Int) -> Int { index < numbers.count ? (numbers[index] ?? fallback) : fallback }
        pendingWrap = false
        switch final {
        case "H", "f":
            cursorRow = min(max(number(0, 1), 1), rows) - 1
            cursorColumn = min(max(number(1, 1), 1), columns) - 1
        case "A": cursorRow = max(0, cursorRow - number(0, 1))
        case "B": cursorRow = min(rows - 1, cursorRow + number(0, 1))
        case "C": cursorColumn = min(columns - 1, cursorColumn + number(0, 1))
        case "D": cursorColumn = max(0, cursorColumn - number(0, 1))
        case "K":
            let range: Range<Int>
            switch number(0, 0) {
            case 1: range = 0..<(cursorColumn + 1)
            case 2: range = 0..<columns
            default: range = cursorColumn..<columns
            }
            for column in range { cells[cursorRow][column] = " " }
        case "J" where number(0, 0) == 2:
            clear()
        case "h" where parameters == "?1049":
            alternate = true
            clear()
        case "l" where parameters == "?1049":
            alternate = false
            clear()
        default:
            break
        }
    }

    private mutating func clear() {
        cells = Array(repeating: Array(repeating: " ", count: columns), count: rows)
    }

    private static func width(of character: Character) -> Int {
        guard let value = character.unicodeScalars.first?.value else { return 1 }
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        switch value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60, 0x1F300...0x1FAFF: return 2
        default: return 1
        }
    }
}
