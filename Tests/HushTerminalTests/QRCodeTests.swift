import Testing
@testable import HushTerminal

@Suite struct QRCodeTests {
    @Test func encodesWithFinderPatternsAndQuietZone() throws {
        let code = try QRCode(data: Array("hush safety number".utf8))
        // Version 1 is 21 modules; 8-bit 18 bytes at level M needs version 2 (25).
        #expect(code.width == 25)
        // Finder pattern: the top-left 7×7 has a dark border and dark 3×3 centre.
        for i in 0..<7 {
            #expect(code.isDark(x: i, y: 0) && code.isDark(x: 0, y: i) && code.isDark(x: i, y: 6) && code.isDark(x: 6, y: i))
        }
        #expect(!code.isDark(x: 1, y: 1) && code.isDark(x: 3, y: 3))
        let lines = code.renderForTerminal(quietZone: 4).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == (25 + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == 25 + 8 })
        // The quiet zone is light: the first line is all full blocks.
        #expect(lines[0].allSatisfy { $0 == "█" })
    }

    @Test func differentDataGivesDifferentSymbols() throws {
        let a = try QRCode(data: [1, 2, 3, 4])
        let b = try QRCode(data: [1, 2, 3, 5])
        #expect(a.modules != b.modules)
    }

    @Test func noColorDisablesStyling() {
        let style = TerminalStyle(environment: ["NO_COLOR": "1"], isTerminal: true)
        #expect(style.bold("x") == "x")
        let coloured = TerminalStyle(environment: [:], isTerminal: true)
        #expect(coloured.bold("x") != "x")
    }
}
