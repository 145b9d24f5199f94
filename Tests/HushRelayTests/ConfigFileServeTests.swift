import Foundation
import HushCrypto
import HushRelayClient
import HushTesting
import Testing

/// `hush relay serve --config FILE` as a real process: a limit the file
/// raises is raised, and a file with an unknown key keeps the relay from starting.
@Suite struct ConfigFileServeTests {
    /// Starts the relay with `arguments`; returns it and its base URL, or its stderr when it did not start.
    private func serve(_ arguments: [String]) throws -> (Process, String?, Pipe) {
        let process = Process()
        process.executableURL = try ServeProcessTests.hushBinary()
        process.arguments = ["relay", "serve", "--port", "0", "--log-level", "warning"] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let line = ServeProcessTests.waitForLine(output, prefix: "hush relay listening on ")
        return (process, line.map { String($0.dropFirst("hush relay listening on ".count)) }, errors)
    }

    /// Logins for an unregistered identity from one address: each takes a
    /// token of the per-address auth bucket (30 at once by default) before its 404.
    private func refusedFor429(_ base: String, attempts: Int) async -> Int {
        let client = RelayClient(baseURL: base)
        let stranger = Ed25519.PrivateKey()
        var limited = 0
        for _ in 0..<attempts {
            do { try await client.authenticate(identity: stranger) } catch { if error.status == 429 { limited += 1 } }
        }
        return limited
    }

    @Test func aLimitRaisedInTheFileAcceptsMoreThanTheDefault() async throws {
        let directory = try TemporaryDirectory()
        let (plain, plainBase, _) = try serve(["--data", directory.path + "/plain"])
        defer { if plain.isRunning { plain.terminate() } }
        let defaultLimited = await refusedFor429(try #require(plainBase), attempts: 45)
        #expect(defaultLimited > 0, "the default auth limit (30 at once, 1/s) let 45 logins through")

        let file = directory.path + "/relay.yaml"
        try "# more logins per address\nrate-limits:\n  auth-per-address-burst: 1000\n".write(toFile: file, atomically: true, encoding: .utf8)
        let (raised, raisedBase, _) = try serve(["--config", file, "--data", directory.path + "/raised"])
        defer { if raised.isRunning { raised.terminate() } }
        #expect(await refusedFor429(try #require(raisedBase), attempts: 45) == 0)
    }

    @Test func anUnknownKeyKeepsTheRelayFromStarting() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/relay.yaml"
        try "port: 0\nrate-limits:\n  auth-per-adress-burst: 1000\n".write(toFile: file, atomically: true, encoding: .utf8)
        let (process, base, errors) = try serve(["--config", file, "--data", directory.path + "/relay"])
        defer { if process.isRunning { process.terminate() } }
        #expect(base == nil)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("unknown setting 'rate-limits.auth-per-adress-burst' (relay.yaml line 3)"), "\(text)")
    }
}
