import Foundation
import HushSubprocess
import HushTesting
import Testing

/// Runs the built `hush` executable as a real process.
@Suite struct HushBinaryTests {
    /// `hush` is built next to the test bundle, in the build products directory.
    static func hushExecutable() throws -> URL { URL(fileURLWithPath: try BuiltBinary.hush) }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let result = try Subprocess.run(try hushExecutable().path, arguments)
        return (result.status, result.stdout, result.stderr)
    }

    @Test func unknownFormatExitsWithTwoAndNamesTheFile() throws {
        let directory = try TemporaryDirectory(label: "vectors")
        let file = directory.url.appendingPathComponent("mystery.json")
        try Data(#"{"greeting": "hello"}"#.utf8).write(to: file)
        let result = try Self.run(["vectors", file.path])
        #expect(result.status == 2)
        #expect(result.error.contains(file.path))
        #expect(result.error.contains("unknown vector format"))
    }

    @Test func builtInVectorsPassAndEndWithTheTotals() throws {
        let result = try Self.run(["vectors", VectorFixtures.vectorsDirectory.path])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        let lines = result.output.split(separator: "\n")
        let last = try #require(lines.last)
        #expect(last.wholeMatch(of: /\d+ passed, 0 failed, 1 skipped/) != nil, "last line was \(last)")
        #expect(lines.contains { $0.hasPrefix("x25519-rfc7748.json: ") })
    }

    @Test func aFailingCaseExitsWithOne() throws {
        let directory = try TemporaryDirectory(label: "vectors")
        let file = directory.url.appendingPathComponent("bad.json")
        try VectorFixtures.write([
            "suite": "hkdf-sha256", "source": "a deliberately wrong case",
            "cases": [["id": "wrong-okm", "ikm": "0b", "salt": "", "info": "", "length": 1, "okm": "00"]],
        ], to: file)
        let result = try Self.run(["vectors", file.path])
        #expect(result.status == 1)
        #expect(result.output.contains("FAILED wrong-okm"))
        #expect(result.output.hasSuffix("0 passed, 1 failed\n"))
    }
}
