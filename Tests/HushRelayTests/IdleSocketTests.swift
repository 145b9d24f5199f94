import Foundation
import HummingbirdWSClient
import HushMessenger
@testable import HushRelay
import HushRelayAPI
import HushRelayClient
import HushTesting
import Logging
import Testing

/// The relay's sockets run in their channel's pipeline (`RelaySocketHandler`)
/// with no task of their own: these check what that handler does by itself
/// — pings that keep a live peer connected, the close of a replaced socket,
/// the bounded queue of frames for a slow reader.
@Suite struct IdleSocketTests {
    /// Opens a raw socket as `client`'s identity and returns the relay's close
    /// frame once the relay closes it (nil after `seconds`).
    private static func closeOfRawSocket(_ client: RelayClient, seconds: Int = 20) async throws -> WebSocketCloseFrame? {
        let token = try #require(RelayClientTransport(client: client).sessionToken?.token)
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 17, additionalHeaders: [.authorization: "Bearer \(token)"])
        let url = client.baseURL.replacingOccurrences(of: "http://", with: "ws://") + RelayPaths.socket
        return try await withThrowingTaskGroup(of: WebSocketCloseFrame??.self) { group in
            group.addTask {
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: Logger(label: "raw")) { inbound, _, _ in
                    for try await _ in inbound.messages(maxSize: 1 << 20) {}
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return .some(nil)
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
    }

    /// A fifth socket of one identity closes the oldest with "going away".
    @Test func aReplacedSocketIsClosedAsGoingAway() async throws {
        try await LiveRelayTests.withLiveRelay { _, aliceClient, _, _, _ in
            let oldest = Task { try await Self.closeOfRawSocket(aliceClient) }
            // Until the raw socket is registered, the newer ones would not replace it.
            try await Task.sleep(for: .milliseconds(500))
            var newer: [RelaySocket] = []
            for _ in 0..<RelayLimits.maxSocketsPerIdentity { newer.append(try await aliceClient.connectSocket()) }
            let close = try await oldest.value
            #expect(close?.closeCode == .goingAway, "\(String(describing: close))")
            #expect(close?.reason?.contains("replaced") == true, "\(String(describing: close))")
            for socket in newer { await socket.close() }
        }
    }

    /// Each socket's expiry timer closes that socket alone: a socket opened
    /// later (the test relay's clock stands still, so its token has its whole
    /// lifetime left from that moment) stays open and gets its pushes.
    @Test func anExpiringSocketLeavesALaterOneOpen() async throws {
        // Tokens of 6 s, the later socket 3 s after the first: its token outlives the first's by 3 s,
        // room for the close, the deposit and the push on two loaded cores (with 3 s and 1.5 s, a
        // full `make test` run missed the push twice: the later socket had expired too).
        try await LiveRelayTests.withLiveRelay(configure: { $0.tokenLifetimeSeconds = 6 }) { _, aliceClient, bobClient, alice, _ in
            let first = Task { try await Self.closeOfRawSocket(aliceClient) }
            try await Task.sleep(for: .milliseconds(3_000))
            let later = try await aliceClient.connectSocket()
            let close = try await first.value
            // Closed by its own token's end, while the later socket (whose token ends
            // 3 s after) stays open: the push below reaches it. No wall-clock bound
            // here, which a loaded machine would break without a defect.
            #expect(close?.closeCode == .policyViolation, "\(String(describing: close))")
            #expect(close?.reason?.contains("token expired") == true, "\(String(describing: close))")
            let receipt = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([6]), requestID: "after-expiry", credential: nil)
            guard case let .message(message) = await LiveRelayTests.nextEvent(later, within: 2) else {
                Issue.record("the later socket got no push after the first one expired")
                return
            }
            #expect(message.messageID == receipt.messageID)
            await later.close()
        }
    }

    /// Over several ping intervals a client that answers pings keeps its
    /// socket, and the socket still carries pushes. (2 s, not 1: on a loaded
    /// machine a pong can be late by a second, and that rightly closes.)
    @Test func aSocketThatAnswersPingsStaysOpen() async throws {
        try await LiveRelayTests.withLiveRelay(configure: { $0.pingIntervalSeconds = 2 }) { _, aliceClient, bobClient, alice, _ in
            let socket = try await aliceClient.connectSocket()
            try await Task.sleep(for: .milliseconds(5_000))
            let receipt = try await bobClient.deposit(recipient: alice.identity, envelope: sealedSized([5]), requestID: "after-pings", credential: nil)
            guard case let .message(message) = await LiveRelayTests.nextEvent(socket, within: 10) else {
                Issue.record("the socket got no push after two ping intervals")
                return
            }
            #expect(message.messageID == receipt.messageID)
            await socket.close()
        }
    }

    /// When the relay shuts down gracefully it closes an open socket with
    /// 1000 (normal closure) at once, rather than leaving it to the close
    /// timeout: 120 s here, so that a shutdown slowed down by a loaded
    /// machine (12.7 s once, with a build and the other suites on two
    /// cores) is still told apart from one that waited for it.
    @Test func aGracefulShutdownClosesOpenSocketsNormally() async throws {
        let closing = CloseBox()
        try await LiveRelayTests.withLiveRelay(configure: { $0.socketCloseTimeoutSeconds = 120 }) { _, aliceClient, _, _, _ in
            closing.set(Task { try await Self.closeOfRawSocket(aliceClient) })
            try await Task.sleep(for: .milliseconds(500))
            closing.shutdownBegan = ContinuousClock.now
        }
        let close = try await closing.task?.value
        #expect(close?.closeCode == .normalClosure, "\(String(describing: close))")
        let shutdown = ContinuousClock.now - (closing.shutdownBegan ?? .now)
        #expect(shutdown < .seconds(60), "the socket waited for the close timeout: \(shutdown)")
    }

    /// A reader too slow for its frames keeps the newest: the oldest are dropped.
    @Test func pendingFramesKeepTheNewest() {
        var pending = PendingFrames(capacity: 3)
        for frame in ["1", "2", "3", "4", "5"] { pending.append(frame) }
        #expect(pending.count == 3)
        #expect(pending.dropped == 2)
        #expect([pending.popFirst(), pending.popFirst(), pending.popFirst(), pending.popFirst()] == ["3", "4", "5", nil])
    }

    private final class CloseBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Task<WebSocketCloseFrame?, any Error>?
        func set(_ task: Task<WebSocketCloseFrame?, any Error>) { lock.withLock { stored = task } }
        var task: Task<WebSocketCloseFrame?, any Error>? { lock.withLock { stored } }
        private var began: ContinuousClock.Instant?
        var shutdownBegan: ContinuousClock.Instant? {
            get { lock.withLock { began } }
            set { lock.withLock { began = newValue } }
        }
    }
}
