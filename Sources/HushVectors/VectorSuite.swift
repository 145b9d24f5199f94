/// One family of vectors in Hush's own format. A vector file is JSON:
///
///     {"suite": "<name>", "source": "<where the values come from>", "cases": [ {...}, ... ]}
///
/// The runner finds the suite whose `name` equals the file's "suite" and
/// runs each case object through it.
public protocol VectorSuite: Sendable {
    /// The value of "suite" in the files this suite runs.
    var name: String { get }
    /// Runs one case. Throws `VectorFailure` (or any error) to fail it.
    func run(_ testCase: [String: Any]) throws
}

/// Why a vector case failed, in words a reviewer can act on. Never contains secrets
/// beyond the public test values of the vector itself.
public struct VectorFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
