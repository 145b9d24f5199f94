import Foundation
import HushFuzzTargets
import Testing

/// Replays every committed fuzz input — the seed corpora and each crash a
/// fuzz run ever found — through the same entry points libFuzzer drives
/// (`make fuzz`). A regression traps here, in the normal test run.
@Suite struct CorpusReplayTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    static func inputs(_ kind: String, _ target: FuzzTarget) -> [URL] {
        let directory = fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySeedAndRegressionInputIsHandled(_ target: FuzzTarget) throws {
        let seeds = Self.inputs("Corpus", target)
        #expect(!seeds.isEmpty, "Fuzz/Corpus/\(target.rawValue) has no seeds")
        for file in seeds + Self.inputs("Regressions", target) {
            target.run(Array(try Data(contentsOf: file)))
        }
    }

    @Test func everyTargetHasADirectoryAndNoStrayOnes() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fuzzDirectory.appendingPathComponent("Corpus").path)
        #expect(Set(names.filter { !$0.hasPrefix(".") }) == Set(FuzzTarget.allCases.map(\.rawValue)))
    }
}
