import ArgumentParser
import Foundation
@testable import hush
import Testing

/// Every command's `--help`, compared with a committed file in `Help/`
/// (`hush.relay.serve.txt` for `hush relay serve`). The commands come from
/// walking `Hush.configuration`, so a new subcommand without a golden file
/// fails here instead of going unreviewed, and a golden file whose command
/// is gone fails too.
///
/// In-process (no binary is spawned), so it belongs to `make test-fast`.
///
/// After an intended change to the help text, regenerate the files and
/// review the diff before committing:
///
///     HUSH_UPDATE_HELP_GOLDENS=1 swift test --skip-build --filter HelpGoldenTests
@Suite struct HelpGoldenTests {
    /// A fixed width, so the text does not depend on the terminal running the tests.
    static let columns = 100

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Help")

    static var updating: Bool { ProcessInfo.processInfo.environment["HUSH_UPDATE_HELP_GOLDENS"] == "1" }

    /// Every command reachable from `hush`, with the path of names that reaches it.
    static func commands() -> [(path: [String], type: any ParsableCommand.Type)] {
        var found: [(path: [String], type: any ParsableCommand.Type)] = []
        func walk(_ type: any ParsableCommand.Type, path: [String]) {
            found.append((path, type))
            for child in type.configuration.subcommands {
                walk(child, path: path + [child._commandName])
            }
        }
        walk(Hush.self, path: [Hush._commandName])
        return found
    }

    static func fileName(_ path: [String]) -> String { path.joined(separator: ".") + ".txt" }

    @Test func everyCommandsHelpMatchesItsGoldenFile() throws {
        let commands = Self.commands()
        #expect(commands.count > 20, "the walk found only \(commands.map { $0.path.joined(separator: " ") })")
        if Self.updating {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
        }
        for (path, type) in commands {
            let name = path.joined(separator: " ")
            let help = Hush.helpMessage(for: type, columns: Self.columns)
            let file = Self.directory.appendingPathComponent(Self.fileName(path))
            if Self.updating {
                try Data(help.utf8).write(to: file)
                continue
            }
            guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
                Issue.record("`\(name) --help` has no golden file \(file.lastPathComponent); regenerate with HUSH_UPDATE_HELP_GOLDENS=1")
                continue
            }
            #expect(help == expected, "`\(name) --help` differs from \(file.lastPathComponent) at line \(Self.firstDifferentLine(help, expected)); regenerate with HUSH_UPDATE_HELP_GOLDENS=1 if intended")
        }
    }

    @Test func everyGoldenFileBelongsToACommand() throws {
        let expected = Set(Self.commands().map { Self.fileName($0.path) })
        if Self.updating {
            // Drop the files of commands that no longer exist.
            for file in try FileManager.default.contentsOfDirectory(atPath: Self.directory.path) where !expected.contains(file) {
                try FileManager.default.removeItem(at: Self.directory.appendingPathComponent(file))
            }
        }
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: Self.directory.path))
        let stale = present.subtracting(expected).sorted()
        #expect(stale.isEmpty, "golden files without a command: \(stale); regenerate with HUSH_UPDATE_HELP_GOLDENS=1")
    }

    /// The 1-based number of the first line that differs, for a readable failure.
    static func firstDifferentLine(_ actual: String, _ expected: String) -> Int {
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let b = expected.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(a.count, b.count) where index >= a.count || index >= b.count || a[index] != b[index] {
            return index + 1
        }
        return 0
    }
}
