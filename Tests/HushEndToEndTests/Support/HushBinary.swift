import Foundation

/// Where the `hush` executable built for these tests lives: beside the test
/// bundle, in `.build/<triple>/debug/` (the test target depends on the
/// executable target, so `swift test` builds it first).
enum HushBinary {
    static let path: String = BuiltBinary.path("hush")
}

/// An executable of this package built beside the test bundle (the test
/// target depends on it, so `swift test` builds it first).
enum BuiltBinary {
    static func path(_ name: String) -> String {
        var candidates = [CommandLine.arguments[0], Bundle.main.bundlePath, Bundle.main.executablePath ?? ""]
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { candidates.append(exe) }
        for candidate in candidates where !candidate.isEmpty {
            var directory = URL(fileURLWithPath: candidate).resolvingSymlinksInPath().deletingLastPathComponent()
            while directory.path != "/" {
                let binary = directory.appendingPathComponent(name).path
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: binary, isDirectory: &isDirectory), !isDirectory.boolValue,
                   FileManager.default.isExecutableFile(atPath: binary) {
                    return binary
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return "\(name)-binary-not-found"
    }
}
