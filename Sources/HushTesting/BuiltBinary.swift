import Foundation

/// An executable of this package built beside the test bundle, in
/// `.build/<triple>/debug/` (each test target that runs one depends on its
/// target, so `swift build --build-tests` builds it first). One search for
/// every test target: `hush`, `EchoBot`, ….
public enum BuiltBinary {
    /// The built `hush`.
    public static var hush: String { get throws { try path("hush") } }

    /// The executable named `name`, looked for from the test bundle's
    /// directory upwards (the test process may run from a symlink or a
    /// bundle directory, so `/proc/self/exe` and the bundle are tried too).
    public static func path(_ name: String) throws -> String {
        if let found = search(name) { return found }
        throw BuiltBinaryMissing(name: name)
    }

    private static func search(_ name: String) -> String? {
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
        return nil
    }
}

/// No executable of that name was built beside the tests.
public struct BuiltBinaryMissing: Error, CustomStringConvertible {
    public let name: String
    public var description: String { "no \(name) executable is built beside the tests: run `swift build --build-tests` first" }
}
