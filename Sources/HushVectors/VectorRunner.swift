import Foundation

/// Reads vector files, tells their format from the content, and runs them.
public struct VectorRunner: Sendable {
    public struct Options: Sendable {
        /// Run cases marked `"slow": true` (RFC 7748's million iterations).
        public var includeSlow: Bool
        public init(includeSlow: Bool = false) { self.includeSlow = includeSlow }
    }

    public let options: Options
    public let suites: [any VectorSuite]

    public init(options: Options = Options(), suites: [any VectorSuite] = VectorSuites.builtIn) {
        self.options = options
        self.suites = suites
    }

    /// Runs one file. Throws `VectorsError` when the file as a whole cannot
    /// be run; failing cases are reported in the result instead.
    public func run(fileAt path: String) throws(VectorsError) -> VectorFileResult {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: Self.readFailureReason(path))
        }
        return try run(data: data, path: path)
    }

    public func run(data: Data, path: String) throws(VectorsError) -> VectorFileResult {
        guard let object = try? JSONSerialization.jsonObject(with: data) else { throw .notJSON(path: path) }
        guard let top = object as? [String: Any] else { throw .unknownFormat(path: path) }
        let name = URL(fileURLWithPath: path).lastPathComponent
        if top["suite"] != nil {
            return try runHush(top, name: name, path: path)
        }
        if top["testGroups"] != nil, top["algorithm"] != nil || top["schema"] != nil {
            return try WycheproofRunner.run(top, name: name, path: path)
        }
        throw .unknownFormat(path: path)
    }

    private func runHush(_ top: [String: Any], name: String, path: String) throws(VectorsError) -> VectorFileResult {
        guard let suiteName = top["suite"] as? String else { throw .malformed(path: path, detail: "\"suite\" is not a string") }
        guard let cases = top["cases"] as? [Any] else { throw .malformed(path: path, detail: "\"cases\" is missing or not an array") }
        guard top["source"] is String else { throw .malformed(path: path, detail: "\"source\" is missing: every vector file says where its values come from") }
        guard let suite = suites.first(where: { $0.name == suiteName }) else {
            throw .unknownSuite(path: path, suite: suiteName, known: suites.map(\.name))
        }
        var result = VectorFileResult(name: name, format: .hush)
        for (index, element) in cases.enumerated() {
            guard let testCase = element as? [String: Any] else {
                result.fail(id: "#\(index)", comment: "", reason: "case is not a JSON object")
                continue
            }
            let id = (testCase["id"] as? String) ?? "#\(index)"
            let comment = (testCase["comment"] as? String) ?? ""
            if testCase.bool("slow") && !options.includeSlow {
                result.skipped += 1
                continue
            }
            do {
                try suite.run(testCase)
                result.passed += 1
            } catch {
                result.fail(id: id, comment: comment, reason: "\(error)")
            }
        }
        return result
    }

    private static func readFailureReason(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return "no such file" }
        if isDirectory.boolValue { return "it is a directory" }
        return "permission denied or I/O error"
    }
}
