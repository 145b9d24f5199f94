/// Runs Project Wycheproof files (`testGroups[].tests[]`, each test with
/// `tcId`, `comment`, `flags` and `result`):
/// - `valid`: the operation must succeed with the expected output;
/// - `invalid`: passes only if the operation is refused, or (for schemas that
///   express failure that way) yields a different output;
/// - `acceptable`: either outcome is allowed and is counted apart, but a
///   wrong output is still a failure.
enum WycheproofRunner {
    /// One schema's way of running a test of a group.
    typealias Evaluate = @Sendable (_ group: [String: Any], _ test: [String: Any]) throws -> WycheproofVerdict

    private static let schemas: [(algorithm: String, schema: String, evaluate: Evaluate)] = [
        ("XDH", "xdh_comp_schema", WycheproofXDH.evaluate),
        ("XCHACHA20-POLY1305", "aead_test_schema", WycheproofAEAD.xChaCha20Poly1305),
        ("CHACHA20-POLY1305", "aead_test_schema", WycheproofAEAD.chaCha20Poly1305),
        ("EDDSA", "eddsa_verify_schema", WycheproofEdDSA.evaluate),
        ("HKDF-SHA-256", "hkdf_test_schema", WycheproofHKDF.evaluate),
        ("HMACSHA256", "mac_test_schema", WycheproofMAC.evaluate),
    ]

    static var supportedDescription: String {
        schemas.map { "\($0.algorithm) (\($0.schema))" }.joined(separator: ", ")
    }

    /// "xdh_comp_schema_v1.json" and "xdh_comp_schema.json" name the same shape.
    static func normalise(schema: String) -> String {
        var name = schema
        if name.hasSuffix(".json") { name.removeLast(5) }
        if let range = name.range(of: "_v", options: .backwards),
           !name[range.upperBound...].isEmpty, name[range.upperBound...].allSatisfy(\.isNumber) {
            name.removeSubrange(range.lowerBound...)
        }
        return name
    }

    static func run(_ top: [String: Any], name: String, path: String) throws(VectorsError) -> VectorFileResult {
        let algorithm = (top["algorithm"] as? String) ?? ""
        let schema = (top["schema"] as? String) ?? ""
        guard let entry = schemas.first(where: { $0.algorithm == algorithm && $0.schema == normalise(schema: schema) }) else {
            throw .unsupportedWycheproof(path: path, algorithm: algorithm, schema: schema)
        }
        guard let groups = top["testGroups"] as? [[String: Any]] else {
            throw .malformed(path: path, detail: "\"testGroups\" is not an array of objects")
        }
        var result = VectorFileResult(name: name, format: .wycheproof)
        for group in groups {
            guard let tests = group["tests"] as? [[String: Any]] else {
                throw .malformed(path: path, detail: "a test group has no \"tests\" array")
            }
            for test in tests {
                record(test, group: group, evaluate: entry.evaluate, into: &result)
            }
        }
        return result
    }

    private static func record(_ test: [String: Any], group: [String: Any], evaluate: Evaluate, into result: inout VectorFileResult) {
        let id = "tcId \((try? test.int("tcId")).map(String.init) ?? "?")"
        let flags = (test["flags"] as? [String]) ?? []
        let comment = [(test["comment"] as? String) ?? "", flags.isEmpty ? "" : "flags: \(flags.joined(separator: ", "))"]
            .filter { !$0.isEmpty }.joined(separator: "; ")
        let expected = (test["result"] as? String) ?? ""
        let verdict: WycheproofVerdict
        do {
            verdict = try evaluate(group, test)
        } catch {
            result.fail(id: id, comment: comment, reason: "\(error)")
            return
        }
        switch (expected, verdict) {
        case (_, .skipped):
            result.skipped += 1
        case ("valid", .succeeded), ("invalid", .rejected), ("invalid", .mismatch):
            result.passed += 1
        case ("acceptable", .succeeded), ("acceptable", .rejected):
            result.acceptable += 1
        case ("valid", .rejected(let why)):
            result.fail(id: id, comment: comment, reason: "a valid case was refused: \(why)")
        case ("valid", .mismatch(let why)), ("acceptable", .mismatch(let why)):
            result.fail(id: id, comment: comment, reason: "wrong output: \(why)")
        case ("invalid", .succeeded):
            result.fail(id: id, comment: comment, reason: "an invalid case was accepted")
        default:
            result.fail(id: id, comment: comment, reason: "unknown expected result \"\(expected)\"")
        }
    }
}

/// What an operation did with one Wycheproof test.
enum WycheproofVerdict {
    /// It succeeded and produced the expected output.
    case succeeded
    /// It succeeded but produced something else.
    case mismatch(String)
    /// It refused the input.
    case rejected(String)
    /// The test is outside what Hush implements (another curve, say).
    case skipped
}

extension WycheproofVerdict {
    /// Runs `operation`; a thrown error means the input was refused.
    static func outcome(_ operation: () throws -> WycheproofVerdict) -> WycheproofVerdict {
        do {
            return try operation()
        } catch {
            return .rejected("\(error)")
        }
    }

    static func compare(_ actual: [UInt8], _ expected: [UInt8], _ what: String) -> WycheproofVerdict {
        actual == expected ? .succeeded : .mismatch("\(what) differs from the expected value")
    }
}
