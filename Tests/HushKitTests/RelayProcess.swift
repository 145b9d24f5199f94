import Foundation
import HushSubprocess
import HushTesting

/// A real relay for the app's tests: `hush relay serve` on a free loopback
/// port, as an app's developer would run one beside their tests. It stops
/// (SIGKILL) when the value goes away.
final class RelayProcess: @unchecked Sendable {
    let url: String
    let directory: URL
    private let child: Subprocess

    /// `environment`: relay settings (`HUSH_RELAY_…`, docs/OPERATIONS.md) beside the defaults.
    init(environment extra: [String: String] = [:]) throws {
        directory = try Self.temporaryDirectory("relay")
        child = try Subprocess(try Self.hushBinary(),
                               ["relay", "serve", "--host", "127.0.0.1", "--port", "0", "--data", directory.path, "--log-level", "error"],
                               environment: ["PATH": "/usr/bin:/bin", "HOME": directory.path, "LANG": "C.UTF-8"].merging(extra) { _, new in new },
                               output: .pipe, errors: .sameAsOutput)
        // The relay prints "hush relay listening on http://HOST:PORT" once it listens.
        var seen = ""
        guard let line = child.readOutputLine(startingWith: "hush relay listening on http", seen: &seen),
              let start = line.range(of: "http") else {
            child.stop()
            throw TestFailure("the relay did not start: \(seen)")
        }
        url = String(line[start.lowerBound...]).trimmingCharacters(in: .whitespaces)
        // Keep draining its output so that it never blocks on a full pipe.
        child.discardOutput()
    }

    /// Stops the relay now (SIGKILL): a relay that goes away mid-way.
    func stop() {
        child.send(SIGKILL)
        child.waitForExit()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new empty directory under the system's temporary directory.
    static func temporaryDirectory(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hushkit-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return url
    }

    /// The `hush` executable built beside these tests (the test target depends on it).
    static func hushBinary() throws -> String { try BuiltBinary.hush }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
