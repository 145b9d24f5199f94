import Foundation
import HushCrypto
import HushRelayAPI
import HushRelayClient
import HushSubprocess
import HushTesting
import Testing

/// `hush relay serve --tls-self-signed` as a real process: two clients with
/// the pinned URL register, log in, deposit, sync and get a push over the
/// WebSocket (wss); a wrong pin is refused before anything is sent, and no
/// pin means the system's trust store, which does not know this key.
@Suite struct PinnedTLSServeTests {
    @Test func pinnedClientsExchangeAndAWrongPinIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let relay = try ServeProcessTests.startHush(["relay", "serve", "--port", "0", "--tls-self-signed", "--first-contact-work-bits", "0",
                                                                 "--data", directory.path + "/relay", "--log-level", "warning"])
        defer { relay.stop() }
        let line = try #require(ServeProcessTests.waitForLine(relay, prefix: "hush relay key pin: "))
        let pinned = try #require(line.split(separator: " ").last.map { String($0.dropLast()) })  // "https://…#pin=…)" less ")"
        #expect(pinned.hasPrefix("https://127.0.0.1:") && pinned.contains("#pin="), "\(line)")
        let keyMode = try FileManager.default.attributesOfItem(atPath: directory.path + "/relay/tls-key.pem")[.posixPermissions] as? Int
        #expect(keyMode == 0o600)

        let alice = try TestUser(seed: "tls-alice"), bob = try TestUser(seed: "tls-bob")
        let aliceClient = RelayClient(baseURL: pinned), bobClient = RelayClient(baseURL: pinned)
        for (user, client) in [(alice, aliceClient), (bob, bobClient)] {
            try await client.register(identity: user.key, signedPrekey: user.signedPrekey, lastResortKEMPrekey: user.lastResortKEM, oneTimePrekeys: [])
            try await client.authenticate(identity: user.key)
        }
        let socket = try await bobClient.connectSocket()
        defer { Task { await socket.close() } }
        // The relay registers the socket just after the upgrade: a deposit
        // made before that is only in the mailbox, so try a few.
        var pushed = false
        for attempt in 0..<5 where !pushed {
            _ = try await aliceClient.deposit(recipient: bob.identity, envelope: sealedSized([UInt8(attempt)]), requestID: "t\(attempt)", credential: nil)
            pushed = await within(2) {
                for await event in socket.events { if case .message = event { return true } }
                return nil
            } ?? false
        }
        #expect(pushed, "no push arrived over wss")
        #expect(try await bobClient.sync().messages.isEmpty == false)

        let wrongPin = String(repeating: "A", count: 43)
        let base = String(pinned[..<pinned.firstIndex(of: "#")!])
        let impostor = RelayClient(baseURL: base + "#pin=" + wrongPin)
        await #expect {
            try await impostor.health()
        } throws: { error in
            guard case let .pinMismatch(expected, presented)? = error as? RelayClientError else { return false }
            return expected == wrongPin && pinned.hasSuffix(presented)
        }
        await #expect(throws: RelayClientError.self) { try await RelayClient(baseURL: base).health() }
    }
}
