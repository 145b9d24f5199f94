import Foundation
import HushVectors

/// Finding the files `hush vectors` runs.
enum VectorFiles {
    /// The package's Vectors/: first under the current directory, then beside
    /// the executable or in one of its parents (`.build/debug/hush` sits three
    /// levels below the checkout).
    static func locateVectorsDirectory() throws(VectorsError) -> String {
        let fileManager = FileManager.default
        var candidates = [URL(fileURLWithPath: fileManager.currentDirectoryPath).appendingPathComponent("Vectors")]
        var directory = executableURL().deletingLastPathComponent()
        while directory.path != "/" && !directory.path.isEmpty {
            candidates.append(directory.appendingPathComponent("Vectors"))
            directory = directory.deletingLastPathComponent()
        }
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
                return candidate.path
            }
        }
        throw .vectorsDirectoryNotFound(searched: [candidates[0].path, "the parents of \(executableURL().path)"])
    }

    private static func executableURL() -> URL {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: resolved)
        }
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }

    /// Files stay as given (a missing one is reported when it is run);
    /// directories become the *.json files below them (subfolders too, such
    /// as Vectors/protocol), sorted by path.
    static func expand(_ paths: [String]) throws(VectorsError) -> [String] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                files.append(path)
                continue
            }
            guard let names = try? FileManager.default.subpathsOfDirectory(atPath: path) else {
                throw .unreadable(path: path, reason: "cannot list the directory")
            }
            files += names.filter { $0.hasSuffix(".json") }.sorted().map { (path as NSString).appendingPathComponent($0) }
        }
        return files
    }
}
