import Synchronization
import HushRelayAPI

/// Where the hub delivers one socket's frames. A WebSocket's sink is its
/// channel handler (`RelaySocketHandler`): an idle socket then costs a NIO
/// channel and no Swift task.
protocol SocketSink: AnyObject, Sendable {
    /// Queues a pre-encoded JSON text frame; never waits.
    func push(_ frame: String)
    /// Another socket of the same identity took this one's place.
    func replaced()
}

/// Who is connected right now, and a way to reach them. Each socket
/// registers a sink for pre-encoded JSON frames; a deposit or an ephemeral
/// envelope is encoded once and handed to every socket of the recipient.
/// Nothing here is stored: when no socket is open, an ephemeral envelope is
/// simply dropped.
public final class ConnectionHub: Sendable {
    /// Frames buffered per socket before the oldest are dropped (a slow
    /// reader then syncs over HTTP; stored envelopes are never lost).
    public static let bufferedFramesPerSocket = 256

    struct Socket {
        let id: UInt64
        let sink: any SocketSink
    }
    struct State {
        var sockets: [[UInt8]: [Socket]] = [:]
        var nextID: UInt64 = 0
        var total = 0
    }

    private let state = Mutex(State())
    private let maxPerIdentity: Int

    public init(maxPerIdentity: Int = RelayLimits.maxSocketsPerIdentity) {
        self.maxPerIdentity = maxPerIdentity
    }

    /// Registers a socket; the identity's oldest socket is told it was
    /// replaced when the identity already has `maxPerIdentity`.
    func register(identity: [UInt8], sink: any SocketSink) -> UInt64 {
        let (id, evicted): (UInt64, Socket?) = state.withLock { state in
            state.nextID += 1
            var list = state.sockets[identity] ?? []
            var evicted: Socket?
            if list.count >= maxPerIdentity {
                evicted = list.removeFirst()
                state.total -= 1
            }
            list.append(Socket(id: state.nextID, sink: sink))
            state.sockets[identity] = list
            state.total += 1
            return (state.nextID, evicted)
        }
        evicted?.sink.replaced()
        return id
    }

    /// Registers an in-process listener whose frames arrive on a stream
    /// (tests); the stream ends when a newer socket replaces it.
    func register(identity: [UInt8]) -> (id: UInt64, frames: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(ConnectionHub.bufferedFramesPerSocket))
        let id = register(identity: identity, sink: StreamSocketSink(continuation))
        return (id, stream)
    }

    func unregister(identity: [UInt8], id: UInt64) {
        state.withLock { state in
            guard var list = state.sockets[identity], let index = list.firstIndex(where: { $0.id == id }) else { return }
            list.remove(at: index)
            state.sockets[identity] = list.isEmpty ? nil : list
            state.total -= 1
        }
    }

    /// Hands `frame` to every socket of `identity`; returns how many got it.
    @discardableResult
    func send(_ frame: String, to identity: [UInt8]) -> Int {
        let targets = state.withLock { $0.sockets[identity] ?? [] }
        for socket in targets { socket.sink.push(frame) }
        return targets.count
    }

    /// Hands the frame `build` makes to every socket of `identity`, building
    /// it only when there is one (most deposits find their recipient offline).
    @discardableResult
    func send(to identity: [UInt8], frame build: () -> String) -> Int {
        let targets = state.withLock { $0.sockets[identity] ?? [] }
        guard !targets.isEmpty else { return 0 }
        let frame = build()
        for socket in targets { socket.sink.push(frame) }
        return targets.count
    }

    /// Closes every socket of `identity` (each unregisters as it closes): a
    /// new registration of the key, made by another home of it perhaps, which
    /// the clients holding those sockets learn of as they reconnect
    /// (`registeredAt`, docs/RELAY-API.md).
    func closeAll(identity: [UInt8]) {
        let targets = state.withLock { $0.sockets[identity] ?? [] }
        for socket in targets { socket.sink.replaced() }
    }

    /// Identities with at least one open socket.
    var connectedIdentities: [[UInt8]] { state.withLock { Array($0.sockets.keys) } }

    func isConnected(_ identity: [UInt8]) -> Bool { state.withLock { $0.sockets[identity] != nil } }

    /// Open sockets, for logs and the load generator.
    public var connectionCount: Int { state.withLock { $0.total } }
}

/// A sink that yields to an `AsyncStream`, newest frames kept.
final class StreamSocketSink: SocketSink {
    private let continuation: AsyncStream<String>.Continuation

    init(_ continuation: AsyncStream<String>.Continuation) { self.continuation = continuation }

    func push(_ frame: String) { continuation.yield(frame) }

    func replaced() { continuation.finish() }
}
