import Foundation
import Testing
import HushVectors

@Suite struct VectorRunnerTests {
    let runner = VectorRunner()

    func run(_ object: Any, includeSlow: Bool = false) throws -> VectorFileResult {
        let data = try JSONSerialization.data(withJSONObject: object)
        return try VectorRunner(options: .init(includeSlow: includeSlow)).run(data: data, path: "test.json")
    }

    @Test func unknownFormatsAreNamed() throws {
        #expect(throws: VectorsError.unknownFormat(path: "test.json")) { _ = try run(["hello": 1]) }
        #expect(throws: VectorsError.unknownFormat(path: "test.json")) { _ = try run([1, 2, 3]) }
        #expect(throws: VectorsError.notJSON(path: "x.json")) { _ = try runner.run(data: Data("nope".utf8), path: "x.json") }
        #expect(throws: VectorsError.unreadable(path: "/nonexistent/v.json", reason: "no such file")) {
            _ = try runner.run(fileAt: "/nonexistent/v.json")
        }
        #expect(throws: VectorsError.self) { _ = try run(["suite": "no-such-suite", "source": "test", "cases": []]) }
        #expect(throws: VectorsError.self) {
            _ = try run(["algorithm": "AES-GCM", "schema": "aead_test_schema_v1.json", "testGroups": []])
        }
    }

    @Test func errorMessagesNameTheFileAndTheWayOut() {
        let message = VectorsError.unknownFormat(path: "/tmp/odd.json").description
        #expect(message.contains("/tmp/odd.json"))
        #expect(message.contains("Wycheproof"))
    }

    @Test func slowCasesRunOnlyWhenAskedFor() throws {
        let nine = "09" + String(repeating: "00", count: 31)
        let file: [String: Any] = ["suite": "x25519", "source": "RFC 7748 section 5.2", "cases": [[
            "id": "one-iteration", "operation": "scalarmult", "slow": true, "iterations": 1,
            "scalar": nine, "uCoordinate": nine,
            "output": "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079",
        ]]]
        let skipped = try run(file)
        #expect(skipped.skipped == 1)
        #expect(skipped.passed == 0)
        let ran = try run(file, includeSlow: true)
        #expect(ran.passed == 1)
        #expect(ran.skipped == 0)
    }

    @Test func malformedCasesFailWithoutStoppingTheFile() throws {
        let result = try run(["suite": "hkdf-sha256", "source": "test", "cases": [
            ["id": "no-fields"],
            ["id": "bad-hex", "ikm": "zz", "salt": "", "info": "", "length": 1, "okm": "00"],
            "not an object",
        ]])
        #expect(result.failed == 3)
        #expect(result.failures.map(\.id) == ["no-fields", "bad-hex", "#2"])
    }

    /// A small Project Wycheproof file written here (never copied from the
    /// Wycheproof project), with values from RFC 5869 appendix A.3.
    @Test func wycheproofResultsFollowTheirSemantics() throws {
        let ikm = String(repeating: "0b", count: 22)
        let okm = "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        func test(_ id: Int, _ result: String, size: Int = 42, okm: String = okm) -> [String: Any] {
            ["tcId": id, "comment": "case \(id)", "flags": [], "ikm": ikm, "salt": "", "info": "", "size": size, "okm": okm, "result": result]
        }
        let wrong = String(okm.dropLast()) + "0"
        let file: [String: Any] = [
            "algorithm": "HKDF-SHA-256", "schema": "hkdf_test_schema_v1.json",
            "testGroups": [["type": "HkdfTest", "keySize": 176, "tests": [
                test(1, "valid"),
                test(2, "invalid", size: 8161),        // refused: passes
                test(3, "invalid", okm: wrong),         // different output: passes
                test(4, "acceptable"),                  // counted apart
                test(5, "valid", okm: wrong),           // wrong output: fails
                test(6, "invalid"),                     // accepted: fails
                test(7, "valid", size: 8161),           // refused: fails
            ]]],
        ]
        let result = try run(file)
        #expect(result.format == .wycheproof)
        #expect(result.passed == 3)
        #expect(result.acceptable == 1)
        #expect(result.failed == 3)
        #expect(result.failures.map(\.id) == ["tcId 5", "tcId 6", "tcId 7"])
    }

    @Test func wycheproofCurvesHushDoesNotImplementAreSkipped() throws {
        let result = try run([
            "algorithm": "XDH", "schema": "xdh_comp_schema.json",
            "testGroups": [["curve": "curve448", "tests": [["tcId": 1, "public": "00", "private": "00", "shared": "00", "result": "valid", "flags": []]]]],
        ])
        #expect(result.skipped == 1)
        #expect(result.failed == 0)
    }
}
