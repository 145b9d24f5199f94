import Foundation
import HushClient
import Testing

/// README.md's exit-code table is the one `hush exit-codes` prints, row for row.
@Suite struct ExitCodeTableTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../README.md").standardizedFileURL

    @Test func theReadmeListsEveryExitCodeWithTheSameMeaning() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let section = try #require(text.range(of: "### Exit codes"), "README.md has no exit-code section")
        let rows = text[section.upperBound...].split(separator: "\n").drop { !$0.hasPrefix("| code") }.dropFirst(2)
            .prefix { $0.hasPrefix("|") }
            .map { row in row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        let readme = rows.map { "\($0[0]) \($0[1])" }
        let program = ExitStatus.table.map { "\($0.code) \($0.meaning)" }
        #expect(readme == program)
        #expect(Set(ExitStatus.table.map(\.code)).count == ExitStatus.table.count, "a code is used twice")
    }
}
