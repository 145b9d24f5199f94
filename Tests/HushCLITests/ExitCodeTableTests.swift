import Foundation
import Testing
@testable import hush

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
    }

    /// Codes a shell can tell from its own (126 not executable, 127 not found,
    /// 128+N killed by signal N), and one meaning per code (a copied meaning is a mistake).
    @Test func everyCodeIsAPlainCodeWithAMeaningOfItsOwn() {
        for (code, meaning) in ExitStatus.table {
            #expect((0...125).contains(code), "\(code) collides with the shell's codes")
            #expect(!meaning.isEmpty, "\(code) has no meaning")
        }
        let meanings = ExitStatus.table.map(\.meaning)
        #expect(Set(meanings).count == meanings.count, "two codes share a meaning")
    }
}
