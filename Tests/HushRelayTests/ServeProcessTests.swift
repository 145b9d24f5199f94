import Foundation
import HushCrypto
import HushRelayClient
import HushTesting
import Testing

/// `hush relay serve --port 0` as a real process: parse the listening line,
/// talk to it, stop it with SIGTERM, and audit what it left behind.
@Suite struct ServeProcessTests {
    /// The `hush` binary next to the test bundle (`swift build --build-tests` builds both).
    static func hushBinary() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("hush")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw TestFailure("the hush binary is not built next to the tests: run swift build --build-tests")
    }

    /// Starts `hush ARGUMENTS` (a `relay serve`) with its standard output on
    /// the returned pipe; the caller terminates it.
    static func startHush(_ arguments: [String]) throws -> (process: Process, output: Pipe) {
        let process = Process()
        process.executableURL = try hushBinary()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    /// Reads lines from `pipe` until one starts with `prefix` (at most 200 lines).
    static func waitForLine(_ pipe: Pipe, prefix: String) -> String? {
        var buffer = Data()
        for _ in 0..<200 {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
            if let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) {
                return String(line)
            }
        }
        return nil
    }

    @Test func serveOnAFreePortThenStopGracefully() async throws {
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = try Self.hushBinary()
        process.arguments = ["relay", "serve", "--port", "0", "--data", directory.path + "/relay", "--log-level", "warning"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let line = try #require(Self.waitForLine(output, prefix: "hush relay listening on "))
        let base = String(line.dropFirst("hush relay listening on ".count))
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let user = try TestUser(seed: "process-user")
        let client = RelayClient(baseURL: base)
        #expect(try await client.health().status == "ok")
        try await client.register(identity: user.key, signedPrekey: user.signedPrekey, lastResortKEMPrekey: user.lastResortKEM, oneTimePrekeys: [])
        try await client.authenticate(identity: user.key)
        _ = try await client.deposit(recipient: user.identity, envelope: sealedSized([1, 2, 3]), requestID: "p1", credential: nil)
        #expect(try await client.sync().messages.count == 1)

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)

        let audit = Process()
        audit.executableURL = try Self.hushBinary()
        audit.arguments = ["audit", "relay", "--data", directory.path + "/relay", "--canary", "no-such-canary-text"]
        let auditOutput = Pipe()
        audit.standardOutput = auditOutput
        try audit.run()
        let text = String(decoding: auditOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        audit.waitUntilExit()
        #expect(audit.terminationStatus == 0)
        #expect(text.contains("Stored envelopes (1)"))
        #expect(text.contains("What the relay sees in transit by design"))
        #expect(text.contains("RESULT: the canary was not found in any encoding"))
    }
}
