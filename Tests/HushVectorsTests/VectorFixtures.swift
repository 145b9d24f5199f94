import Foundation
import Testing

/// Paths and scratch files shared by the vector tests.
enum VectorFixtures {
    /// The package's Vectors/, found from this source file: Tests/HushVectorsTests/ is two levels down.
    static let vectorsDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")

    static func vectorFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: vectorsDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    static func write(_ object: Any, to url: URL) throws {
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted]).write(to: url)
    }

    static func readObject(_ url: URL) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }
}
