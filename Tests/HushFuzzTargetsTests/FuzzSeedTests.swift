import Foundation
import HushFuzzTargets
import Testing

/// The seed generator makes inputs for every target from the real encoders
/// and the vectors; each runs through its target. With
/// HUSH_WRITE_FUZZ_SEEDS=1 (`make fuzz-seeds`) they are also written to
/// Fuzz/Corpus/TARGET/seed-NN, replacing the previous seeds.
@Suite struct FuzzSeedTests {
    @Test func everyTargetGetsSeedsThatItHandles() throws {
        let root = CorpusReplayTests.fuzzDirectory.deletingLastPathComponent()
        let seeds = try FuzzSeeds.generate(vectorsDirectory: root.appendingPathComponent("Vectors"))
        for target in FuzzTarget.allCases {
            let inputs = seeds[target] ?? []
            #expect(inputs.count >= 2, "\(target.rawValue): \(inputs.count) seeds")
            for input in inputs { target.run(input) }
        }
        guard ProcessInfo.processInfo.environment["HUSH_WRITE_FUZZ_SEEDS"] == "1" else { return }
        for (target, inputs) in seeds {
            let directory = CorpusReplayTests.fuzzDirectory.appendingPathComponent("Corpus").appendingPathComponent(target.rawValue)
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (index, input) in inputs.enumerated() {
                try Data(input).write(to: directory.appendingPathComponent(String(format: "seed-%02d", index)))
            }
        }
    }
}
