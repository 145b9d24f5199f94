/// What running one file gave.
public struct VectorFileResult: Sendable {
    /// The file's name (no directory), as printed.
    public let name: String
    public let format: VectorFormat
    public internal(set) var passed = 0
    public internal(set) var failed = 0
    /// Project Wycheproof "acceptable" cases: either outcome is allowed, so
    /// they count neither as passed nor as failed.
    public internal(set) var acceptable = 0
    /// Cases not run (slow ones without `--slow`, other curves in a Wycheproof file).
    public internal(set) var skipped = 0
    public internal(set) var failures: [VectorCaseFailure] = []

    init(name: String, format: VectorFormat) {
        self.name = name
        self.format = format
    }

    mutating func fail(id: String, comment: String, reason: String) {
        failed += 1
        failures.append(VectorCaseFailure(id: id, comment: comment, reason: reason))
    }
}

/// One failed case, identified as the file identifies it (Hush "id" or Wycheproof "tcId").
public struct VectorCaseFailure: Sendable, CustomStringConvertible {
    public let id: String
    public let comment: String
    public let reason: String

    public var description: String {
        comment.isEmpty ? "\(id): \(reason)" : "\(id) (\(comment)): \(reason)"
    }
}

/// The two file formats the runner reads, told apart by their content.
public enum VectorFormat: String, Sendable {
    /// `{"suite", "source", "cases"}`.
    case hush
    /// Project Wycheproof: `{"algorithm", "schema", "testGroups"}`.
    case wycheproof
}
