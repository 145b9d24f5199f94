import Foundation
import HushSubprocess

/// Runs this same `hush` executable as a child process, the way a user
/// would from a shell, and captures what it prints.
struct HushInvocation {
    let arguments: [String]
    let environment: [String: String]

    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    /// The path of the running executable (so the demo needs nothing on PATH).
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    func run(input: String? = nil) throws -> Result {
        let result = try Subprocess.run(HushInvocation.executable, arguments, environment: environment, input: input)
        return Result(status: result.status, output: result.stdout, error: result.stderr)
    }
}

/// A relay started as a child process on a free loopback port.
final class RelayProcess {
    private let child: Subprocess
    let url: String

    init(dataDirectory: String) throws {
        child = try Subprocess(HushInvocation.executable, ["relay", "serve", "--port", "0", "--data", dataDirectory, "--log-level", "error"],
                               output: .pipe, errors: .nullDevice)
        // The relay prints one line when it listens: "hush relay listening on http://HOST:PORT".
        var seen = ""
        guard let line = child.readOutputLine(startingWith: "hush relay listening on ", seen: &seen),
              let range = line.range(of: "http://") else {
            child.stop()
            throw DemoError("the relay did not start (it printed: \(seen.isEmpty ? "nothing" : seen))")
        }
        url = String(line[range.lowerBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
        child.discardOutput()
    }

    /// SIGTERM (the relay ends in order), SIGKILL after 10 s: the demo never waits for ever.
    func stop() {
        child.stop(grace: 10)
    }

    deinit { stop() }
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
