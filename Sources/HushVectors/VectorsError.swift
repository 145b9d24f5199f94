/// Why a whole file could not be run (as opposed to a case that failed).
/// Each message names the file and says what to do.
public enum VectorsError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notJSON(path: String)
    case unknownFormat(path: String)
    case unknownSuite(path: String, suite: String, known: [String])
    case unsupportedWycheproof(path: String, algorithm: String, schema: String)
    case malformed(path: String, detail: String)
    case vectorsDirectoryNotFound(searched: [String])

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            return "\(path): cannot read the file (\(reason)); check the path and its permissions"
        case let .notJSON(path):
            return "\(path): not a JSON file; pass a Hush vector file or a Project Wycheproof JSON file"
        case let .unknownFormat(path):
            return "\(path): unknown vector format; expected a Hush vector file (top-level \"suite\", \"source\", \"cases\") or a Project Wycheproof file (top-level \"algorithm\", \"schema\", \"testGroups\")"
        case let .unknownSuite(path, suite, known):
            return "\(path): no vector suite named \"\(suite)\"; known suites: \(known.joined(separator: ", "))"
        case let .unsupportedWycheproof(path, algorithm, schema):
            return "\(path): Project Wycheproof algorithm \"\(algorithm)\" with schema \"\(schema)\" is not supported; supported: \(WycheproofRunner.supportedDescription)"
        case let .malformed(path, detail):
            return "\(path): malformed vector file (\(detail)); fix or regenerate the file"
        case let .vectorsDirectoryNotFound(searched):
            return "cannot find the Vectors/ directory (looked in \(searched.joined(separator: ", "))); run from the package checkout or pass vector files as arguments"
        }
    }
}
