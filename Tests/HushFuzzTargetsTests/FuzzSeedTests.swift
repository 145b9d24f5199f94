import Foundation
import HushFuzzTargets
import Testing

/// The seed generator makes inputs for every target from the real encoders
/// and the vectors; each runs through its target. With
/// HUSH_WRITE_FUZZ_SEEDS=1 (`make fuzz-seeds`) they are also written to
/// Fuzz/Corpus/TARGET/seed-NN, replacing the previous seeds: of every
/// target, or of those HUSH_FUZZ_SEED_TARGETS names (`make fuzz-seeds
/// TARGETS="content vector-file"`). Seeds made with fresh randomness differ
/// from run to run, so regenerating only the target that changed keeps the
/// others' corpus (and the diff) as it was.
@Suite struct FuzzSeedTests {
    @Test func everyTargetGetsSeedsThatItHandles() throws {
        let root = CorpusReplayTests.fuzzDirectory.deletingLastPathComponent()
        let seeds = try FuzzSeeds.generate(vectorsDirectory: root.appendingPathComponent("Vectors"))
        for target in FuzzTarget.allCases {
            let inputs = seeds[target] ?? []
            #expect(inputs.count >= 2, "\(target.rawValue): \(inputs.count) seeds")
            for input in inputs { target.run(input) }
        }
        let environment = ProcessInfo.processInfo.environment
        guard environment["HUSH_WRITE_FUZZ_SEEDS"] == "1" else { return }
        let named = Set((environment["HUSH_FUZZ_SEED_TARGETS"] ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init))
        let unknown = named.subtracting(FuzzTarget.allCases.map(\.rawValue))
        #expect(unknown.isEmpty, "no such fuzz targets: \(unknown.sorted())")
        for (target, inputs) in seeds where named.isEmpty || named.contains(target.rawValue) {
            let directory = CorpusReplayTests.fuzzDirectory.appendingPathComponent("Corpus").appendingPathComponent(target.rawValue)
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (index, input) in inputs.enumerated() {
                try Data(input).write(to: directory.appendingPathComponent(String(format: "seed-%02d", index)))
            }
        }
    }
}
