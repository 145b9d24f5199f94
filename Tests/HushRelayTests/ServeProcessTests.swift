import Foundation
import HushCrypto
import HushRelayClient
import HushSubprocess
import HushTesting
import Testing

/// `hush relay serve --port 0` as a real process: parse the listening line,
/// talk to it, stop it with SIGTERM, and audit what it left behind.
@Suite struct ServeProcessTests {
    /// The `hush` binary next to the test bundle (`swift build --build-tests` builds both).
    static func hushBinary() throws -> URL { URL(fileURLWithPath: try BuiltBinary.hush) }

    /// Starts `hush ARGUMENTS` (a `relay serve`) with its standard output on
    /// a pipe `waitForLine` reads; the caller stops it.
    static func startHush(_ arguments: [String], environment: [String: String]? = nil) throws -> Subprocess {
        try Subprocess(try hushBinary().path, arguments, environment: environment, output: .pipe, errors: .standardError)
    }

    /// Reads `child`'s standard output until a line starts with `prefix`; nil when the output ended first.
    static func waitForLine(_ child: Subprocess, prefix: String) -> String? {
        var seen = ""
        return child.readOutputLine(startingWith: prefix, seen: &seen)
    }

    @Test func serveOnAFreePortThenStopGracefully() async throws {
        let directory = try TemporaryDirectory()
        let relay = try Self.startHush(["relay", "serve", "--port", "0", "--data", directory.path + "/relay", "--log-level", "warning"])
        defer { relay.stop() }
        let line = try #require(Self.waitForLine(relay, prefix: "hush relay listening on "))
        let base = String(line.dropFirst("hush relay listening on ".count))
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let user = try TestUser(seed: "process-user")
        let client = RelayClient(baseURL: base)
        #expect(try await client.health().status == "ok")
        try await client.register(identity: user.key, signedPrekey: user.signedPrekey, lastResortKEMPrekey: user.lastResortKEM, oneTimePrekeys: [])
        try await client.authenticate(identity: user.key)
        _ = try await client.deposit(recipient: user.identity, envelope: sealedSized([1, 2, 3]), requestID: "p1", credential: nil)
        #expect(try await client.sync().messages.count == 1)

        relay.send(SIGTERM)
        #expect(relay.waitForExit() == .exited(0))

        let audit = try Subprocess.run(try Self.hushBinary().path, ["audit", "relay", "--data", directory.path + "/relay", "--canary", "no-such-canary-text"])
        let text = audit.stdout
        #expect(audit.status == 0, "\(audit.stderr)")
        #expect(text.contains("Stored envelopes (1)"))
        #expect(text.contains("What the relay sees in transit by design"))
        #expect(text.contains("RESULT: the canary was not found in any encoding"))
    }
}
