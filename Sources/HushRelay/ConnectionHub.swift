import Synchronization
import HushRelayAPI

/// Who is connected right now, and a way to reach them. Each socket
/// registers a bounded stream of pre-encoded JSON frames; a deposit or an
/// ephemeral envelope is encoded once and yielded to every socket of the
/// recipient. Nothing here is stored: when no socket is open, an ephemeral
/// envelope is simply dropped.
public final class ConnectionHub: Sendable {
    /// Frames buffered per socket before the oldest are dropped (a slow
    /// reader then syncs over HTTP; stored envelopes are never lost).
    public static let bufferedFramesPerSocket = 256

    struct Socket {
        let id: UInt64
        let continuation: AsyncStream<String>.Continuation
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

    /// Registers a socket; the identity's oldest socket is closed when it
    /// already has `maxPerIdentity`.
    func register(identity: [UInt8]) -> (id: UInt64, frames: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(ConnectionHub.bufferedFramesPerSocket))
        let (id, evicted): (UInt64, Socket?) = state.withLock { state in
            state.nextID += 1
            var list = state.sockets[identity] ?? []
            var evicted: Socket?
            if list.count >= maxPerIdentity {
                evicted = list.removeFirst()
                state.total -= 1
            }
            list.append(Socket(id: state.nextID, continuation: continuation))
            state.sockets[identity] = list
            state.total += 1
            return (state.nextID, evicted)
        }
        evicted?.continuation.finish()
        return (id, stream)
    }

    func unregister(identity: [UInt8], id: UInt64) {
        let removed: Socket? = state.withLock { state in
            guard var list = state.sockets[identity], let index = list.firstIndex(where: { $0.id == id }) else { return nil }
            let socket = list.remove(at: index)
            state.sockets[identity] = list.isEmpty ? nil : list
            state.total -= 1
            return socket
        }
        removed?.continuation.finish()
    }

    /// Yields `frame` to every socket of `identity`; returns how many got it.
    @discardableResult
    func send(_ frame: String, to identity: [UInt8]) -> Int {
        let targets = state.withLock { $0.sockets[identity] ?? [] }
        for socket in targets { socket.continuation.yield(frame) }
        return targets.count
    }

    /// Yields the frame `build` makes to every socket of `identity`, building
    /// it only when there is one (most deposits find their recipient offline).
    @discardableResult
    func send(to identity: [UInt8], frame build: () -> String) -> Int {
        let targets = state.withLock { $0.sockets[identity] ?? [] }
        guard !targets.isEmpty else { return 0 }
        let frame = build()
        for socket in targets { socket.continuation.yield(frame) }
        return targets.count
    }

    /// Identities with at least one open socket.
    var connectedIdentities: [[UInt8]] { state.withLock { Array($0.sockets.keys) } }

    func isConnected(_ identity: [UInt8]) -> Bool { state.withLock { $0.sockets[identity] != nil } }

    /// Open sockets, for logs and the load generator.
    public var connectionCount: Int { state.withLock { $0.total } }
}
