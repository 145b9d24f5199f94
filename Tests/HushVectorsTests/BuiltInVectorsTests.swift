import Foundation
import HushTesting
import Testing
import HushVectors

/// Runs everything under Vectors/ through the runner, so `swift test` checks
/// the transcribed RFC vectors and Hush's own negative cases.
@Suite struct BuiltInVectorsTests {
    @Test func everyVectorFilePasses() throws {
        let files = try VectorFixtures.vectorFiles()
        #expect(files.count >= 7, "Vectors/ should hold the RFC 7748, 8032, 5869 and XChaCha files and the negative ones")
        let runner = VectorRunner()
        var skipped = 0
        for file in files {
            let result = try runner.run(fileAt: file.path)
            #expect(result.format == .hush)
            #expect(result.failed == 0, "\(result.name): \(result.failures.map(\.description))")
            #expect(result.passed > 0, "\(result.name) ran no case")
            skipped += result.skipped
        }
        // Only RFC 7748's million iterations waits for --slow.
        #expect(skipped == 1)
    }

    @Test func everyFileNamesItsSource() throws {
        for file in try VectorFixtures.vectorFiles() {
            let object = try VectorFixtures.readObject(file)
            let source = try #require(object["source"] as? String, "\(file.lastPathComponent) has no source")
            #expect(source.count > 20)
            let readme = try String(contentsOf: VectorFixtures.vectorsDirectory.appendingPathComponent("README.md"), encoding: .utf8)
            #expect(readme.contains(file.lastPathComponent), "Vectors/README.md does not list \(file.lastPathComponent)")
        }
    }

    /// Each file with one expected value changed (or one invalid case marked
    /// valid) must fail: the runner really compares.
    @Test func corruptedCopiesFail() throws {
        let directory = try TemporaryDirectory(label: "vectors")
        for file in try VectorFixtures.vectorFiles() {
            var object = try VectorFixtures.readObject(file)
            var cases = try #require(object["cases"] as? [[String: Any]])
            var first = cases[0]
            if (first["result"] as? String) == "invalid" {
                first["result"] = "valid"
            } else {
                let field = try #require(["output", "shared", "signature", "tag", "okm"].first { first[$0] != nil })
                let hex = try #require(first[field] as? String)
                first[field] = String(hex.dropLast()) + (hex.last == "0" ? "1" : "0")
            }
            cases[0] = first
            object["cases"] = cases
            let copy = directory.url.appendingPathComponent(file.lastPathComponent)
            try VectorFixtures.write(object, to: copy)
            let result = try VectorRunner().run(fileAt: copy.path)
            #expect(result.failed >= 1, "corrupting \(file.lastPathComponent) went unnoticed")
            #expect(result.failures.first?.id == first["id"] as? String)
        }
    }
}
