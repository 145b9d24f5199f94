import Foundation

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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HushInvocation.executable)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        } else {
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        // Read both pipes fully before waiting, so a chatty child never blocks on a full pipe.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      output: String(decoding: outData, as: UTF8.self),
                      error: String(decoding: errData, as: UTF8.self))
    }
}

/// A relay started as a child process on a free loopback port.
final class RelayProcess {
    let process = Process()
    let url: String

    init(dataDirectory: String) throws {
        process.executableURL = URL(fileURLWithPath: HushInvocation.executable)
        process.arguments = ["relay", "serve", "--port", "0", "--data", dataDirectory, "--log-level", "error"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The relay prints one line when it listens: "hush relay listening on http://HOST:PORT".
        var buffer = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !buffer.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
        }
        let line = String(decoding: buffer, as: UTF8.self)
        guard let range = line.range(of: "http://") else {
            process.terminate()
            throw DemoError("the relay did not start (it printed: \(line.isEmpty ? "nothing" : line))")
        }
        url = String(line[range.lowerBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        guard process.isRunning else { return }
        process.interrupt()
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
