import Foundation
import HTTPTypes
import HummingbirdWSClient
import HushCrypto
import HushMessenger
import HushRelay
import HushRelayAPI
import HushRelayClient
import HushTesting
import Logging
import NIOCore
import Testing

/// A logged-in client that misuses its WebSocket — junk frames, a flood of
/// ephemerals — is answered with error frames and then cut off, while
/// another user's socket keeps getting its pushes.
@Suite struct HostileSocketTests {
    /// Opens a raw socket as `client`'s identity, runs `send`, and collects
    /// the relay's text frames until it closes the connection (or 20 s pass).
    private static func hostileSocket(_ client: RelayClient,
                                      send: @escaping @Sendable (WebSocketOutboundWriter) async throws -> Void)
        async throws -> (frames: [String], close: WebSocketCloseFrame?) {
        let token = try #require(RelayClientTransport(client: client).sessionToken?.token)
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 17, additionalHeaders: [.authorization: "Bearer \(token)"])
        let url = client.baseURL.replacingOccurrences(of: "http://", with: "ws://") + RelayPaths.socket
        let frames = Frames()
        let close = try await withThrowingTaskGroup(of: WebSocketCloseFrame??.self) { group in
            group.addTask {
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: Logger(label: "hostile")) { inbound, outbound, _ in
                    let writer = Task { try await send(outbound) }
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case let .text(text) = message { frames.append(text) }
                    }
                    writer.cancel()
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                return .some(nil)
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
        return (frames.all, close)
    }

    /// Reads `socket` with one iterator (cancelling a waiting iterator ends
    /// the stream) until a pushed message, counting ephemerals before it; nil
    /// after 10 s without one.
    private static func ephemeralsThenPush(_ socket: RelaySocket) async -> (Int, MailboxMessage?) {
        await withTaskGroup(of: (Int, MailboxMessage?)?.self) { group in
            group.addTask {
                var ephemerals = 0
                for await event in socket.events {
                    switch event {
                    case .ephemeral: ephemerals += 1
                    case let .message(message): return (ephemerals, message)
                    default: return (ephemerals, nil)
                    }
                }
                return (ephemerals, nil)
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? (-1, nil)
        }
    }

    private final class Frames: @unchecked Sendable {
        private let lock = NSLock()
        private var texts: [String] = []
        func append(_ text: String) { lock.withLock { texts.append(text) } }
        var all: [String] { lock.withLock { texts } }
    }

    /// A socket does not outlive the token that opened it: when the token
    /// expires the relay closes it (policy violation, "token expired"), so a
    /// socket opened with a stolen or old token does not stay open for days
    /// on pings alone. The test relay's clock stands still, so only the
    /// socket's own timer can close it.
    @Test func aSocketIsClosedWhenItsTokenExpires() async throws {
        try await LiveRelayTests.withLiveRelay(configure: { $0.tokenLifetimeSeconds = 2 }) { _, _, bobClient, _, _ in
            let started = ContinuousClock.now
            let (frames, close) = try await Self.hostileSocket(bobClient) { _ in }
            #expect(frames.isEmpty, "\(frames)")
            #expect(close?.closeCode == .policyViolation, "\(String(describing: close))")
            #expect(close?.reason?.contains("token expired") == true, "\(String(describing: close))")
            #expect(ContinuousClock.now - started >= .seconds(1), "closed before the token's lifetime")
        }
    }

    @Test func junkFramesGetErrorsThenTheSocketIsClosed() async throws {
        try await LiveRelayTests.withLiveRelay { _, aliceClient, bobClient, alice, _ in
            let aliceSocket = try await aliceClient.connectSocket()
            let (frames, close) = try await Self.hostileSocket(bobClient) { outbound in
                try await outbound.write(.binary(ByteBuffer(bytes: [0xde, 0xad])))
                try await outbound.write(.text("not json at all"))
                try await outbound.write(.text(#"{"type":"subscribe","recipient":"AAAA","credential":"AAAA","envelope":"AAAA"}"#))
                try await outbound.write(.text("never read"))
            }
            #expect(frames.count == 3 && frames.allSatisfy { $0.contains(#""type":"error""#) }, "\(frames)")
            #expect(close?.closeCode == .policyViolation, "\(String(describing: close))")

            // Alice, meanwhile, is served as usual.
            let receipt = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([4, 2]), requestID: "after-junk", credential: nil)
            guard case let .message(message) = await LiveRelayTests.nextEvent(aliceSocket) else {
                Issue.record("alice's socket got no push after the junk")
                return
            }
            #expect(message.messageID == receipt.messageID)
            await aliceSocket.close()
        }
    }

    @Test func aFloodOfEphemeralsIsRateLimitedAndCutOffWhileOthersKeepTheirPushes() async throws {
        try await LiveRelayTests.withLiveRelay { _, aliceClient, bobClient, alice, _ in
            let credential = DeterministicRandom(seed: "alice-gives-bob").bytes(32)
            try await aliceClient.updateCredentials(add: [credential])
            let aliceSocket = try await aliceClient.connectSocket()
            let frame = try String(decoding: JSONEncoder().encode(SocketClientFrame(recipient: Base64Bytes(alice.identity), credential: Base64Bytes(credential),
                                                                                    envelope: Base64Bytes([UInt8](repeating: 7, count: 64)))), as: UTF8.self)
            let flood = 5_000
            let (frames, close) = try await Self.hostileSocket(bobClient) { outbound in
                for _ in 0..<flood { try await outbound.write(.text(frame)) }
            }
            #expect(close?.closeCode == .policyViolation, "the flooder is cut off: \(String(describing: close))")
            #expect(frames.contains { $0.contains("rate_limited") }, "\(frames.suffix(3))")

            // Her socket still carries deposits, and before the push it had at
            // most what the per-identity limit let through.
            let receipt = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([9]), requestID: "after-flood", credential: nil)
            let (ephemerals, pushed) = await Self.ephemeralsThenPush(aliceSocket)
            #expect(pushed?.messageID == receipt.messageID, "alice's socket got no push after the flood (\(ephemerals) ephemerals first)")
            #expect(ephemerals < flood / 10, "\(ephemerals) of \(flood) reached alice")
            await aliceSocket.close()
        }
    }
}
