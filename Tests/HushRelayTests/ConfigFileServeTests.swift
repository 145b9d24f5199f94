import Foundation
import HushCrypto
import HushRelayClient
import HushSubprocess
import HushTesting
import Testing

/// `hush relay serve --config FILE` as a real process: a limit the file
/// raises is raised, and a file with an unknown key keeps the relay from starting.
@Suite struct ConfigFileServeTests {
    /// Starts the relay with `arguments`; returns it and its base URL (nil when it did not start:
    /// its standard error tells why).
    private func serve(_ arguments: [String]) throws -> (Subprocess, String?) {
        let relay = try Subprocess(try ServeProcessTests.hushBinary().path, ["relay", "serve", "--port", "0", "--log-level", "warning"] + arguments,
                                   output: .pipe, errors: .pipe)
        let line = ServeProcessTests.waitForLine(relay, prefix: "hush relay listening on ")
        return (relay, line.map { String($0.dropFirst("hush relay listening on ".count)) })
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

    /// Both relays refill the login bucket almost never (one per 1,000 s), so
    /// the count does not depend on how fast a loaded machine sends: only the
    /// burst differs, the default 30 against 1,000 from the file.
    @Test func aLimitRaisedInTheFileAcceptsMoreThanTheDefault() async throws {
        let directory = try TemporaryDirectory()
        let slow = directory.path + "/default-burst.yaml", raised = directory.path + "/raised-burst.yaml"
        try "rate-limits:\n  auth-per-address-per-second: 0.001\n".write(toFile: slow, atomically: true, encoding: .utf8)
        try "# more logins per address\nrate-limits:\n  auth-per-address-burst: 1000\n  auth-per-address-per-second: 0.001\n"
            .write(toFile: raised, atomically: true, encoding: .utf8)

        let (plain, plainBase) = try serve(["--config", slow, "--data", directory.path + "/plain"])
        defer { plain.stop() }
        #expect(await refusedFor429(try #require(plainBase), attempts: 45) == 15, "the default burst is 30")

        let (more, moreBase) = try serve(["--config", raised, "--data", directory.path + "/raised"])
        defer { more.stop() }
        #expect(await refusedFor429(try #require(moreBase), attempts: 45) == 0)
    }

    @Test func anUnknownKeyKeepsTheRelayFromStarting() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/relay.yaml"
        try "port: 0\nrate-limits:\n  auth-per-adress-burst: 1000\n".write(toFile: file, atomically: true, encoding: .utf8)
        let (process, base) = try serve(["--config", file, "--data", directory.path + "/relay"])
        defer { process.stop() }
        #expect(base == nil)
        #expect(process.waitForExit() != .exited(0))
        let text = String(decoding: process.readErrorsToEnd(), as: UTF8.self)
        #expect(text.contains("unknown setting 'rate-limits.auth-per-adress-burst' (relay.yaml line 3)"), "\(text)")
    }
}
