import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The daemon's local API: JSON-RPC 2.0, one message per line, on a Unix
/// socket that only the daemon's own user may use.
///
/// The socket file is made 0600 inside the account's 0700 directory, and
/// every connection's peer is checked with SO_PEERCRED: a process of another
/// user is answered with one error and closed before anything it sent is read.
public struct LocalSocketServer: Sendable {
    /// The longest request line taken (4 MiB: a message of the largest size, base64, with room).
    public static let maximumLineLength = 4 << 20

    public let path: String
    public let methods: RPCMethods
    /// Turns a method's own error into what the caller reads.
    public let translate: @Sendable (any Error) -> RPCError

    public init(path: String, methods: RPCMethods, translate: @escaping @Sendable (any Error) -> RPCError) {
        self.path = path
        self.methods = methods
        self.translate = translate
    }

    /// Binds the socket (replacing a stale file: the caller owns the
    /// directory exclusively), calls `ready`, and serves until cancelled.
    public func run(ready: @Sendable () -> Void = {}) async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 128)
            // A client that ends its input (shutdown(SHUT_WR), `printf … | nc -U`) still reads the
            // answers to what it sent: the connection stays open for writing until they are out.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(LineFrameDecoder(maximumLength: Self.maximumLineLength)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: child)
                }.flatMap { connection in
                    Self.peerCredentials(of: child).map { (connection, $0) }
                }
            }
        guard chmod(path, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            try? await server.channel.close()
            throw RPCError.internalError("could not make \(path) private (\(reason))")
        }
        ready()
        // Open connections, closed with the server: a client that keeps its
        // connection open must not keep a stopping daemon alive.
        let open = OpenConnections()
        try await withTaskCancellationHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await (connection, peer) in connections {
                        guard open.insert(connection.channel) else {
                            connection.channel.close(promise: nil)
                            continue
                        }
                        group.addTask {
                            await serve(connection, peer: peer)
                            open.remove(connection.channel)
                        }
                    }
                }
            }
        } onCancel: {
            server.channel.close(promise: nil)
            open.closeAll()
        }
    }

    private static func peerCredentials(of channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(RPCError.internalError("the connection cannot tell its peer"))
        }
        let future: EventLoopFuture<PeerCredentialsLayout> = provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SO_PEERCRED)
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>, peer: PeerCredentials) async {
        try? await connection.executeThenClose { inbound, outbound in
            let writer = LineWriter(outbound: outbound)
            guard peer.uid == getuid() else {
                try await writer.send(Self.errorResponse(RPCError(code: -32001, message: "refused: this socket serves only the user who runs the daemon"), id: .null))
                return
            }
            let background = ConnectionTasks()
            defer { background.cancelAll() }
            let notify: @Sendable (String, JSONValue) async throws -> Void = { method, params in
                try await writer.send(.object(["jsonrpc": .string("2.0"), "method": .string(method), "params": params]))
            }
            await withDiscardingTaskGroup { group in
                do {
                    for try await line in inbound {
                        group.addTask {
                            // What a method spawns starts once its answer is written: a subscription's
                            // first notifications came before the answer under load, and a caller that
                            // reads up to the answer (DaemonConnection.call) dropped them (`hush listen`
                            // through a daemon then never printed the connection's state).
                            let afterAnswer = WorkAfterAnswer()
                            let call = RPCMethods.Call(peer: peer, notify: notify, spawn: afterAnswer.add)
                            if let response = await respond(to: Data(line.readableBytesView), call: call) {
                                try? await writer.send(response)
                            }
                            afterAnswer.start(on: background)
                        }
                    }
                } catch {
                    // Too much at once (a line past the limit): refused, and what it had asked stops.
                    try? await writer.send(Self.errorResponse(.invalidRequest(String(describing: error)), id: .null))
                    group.cancelAll()
                }
                // The input ended: the requests in flight finish and are answered (a walkthrough's
                // client that shut its write side after a send got no answer, though the message went);
                // what they spawned to outlive the answer (subscriptions) ends with the connection below.
            }
        }
    }

    /// The answer to one line: a response, an array of them (a batch), or
    /// nothing (notifications only).
    func respond(to line: Data, call: RPCMethods.Call) async -> JSONValue? {
        guard let message = try? JSONValue(parsing: line) else {
            return Self.errorResponse(.parseError("the line is not JSON"), id: .null)
        }
        guard case let .array(batch) = message else { return await handle(message, call: call) }
        guard !batch.isEmpty else { return Self.errorResponse(.invalidRequest("an empty batch"), id: .null) }
        var responses: [JSONValue] = []
        for request in batch {
            if let response = await handle(request, call: call) { responses.append(response) }
        }
        return responses.isEmpty ? nil : .array(responses)
    }

    private func handle(_ request: JSONValue, call: RPCMethods.Call) async -> JSONValue? {
        guard case let .object(fields) = request else { return Self.errorResponse(.invalidRequest("a request is an object"), id: .null) }
        let id = fields["id"]
        switch id {
        case nil, .null?, .string?, .number?: break
        default: return Self.errorResponse(.invalidRequest("'id' must be a string, a number or null"), id: .null)
        }
        guard fields["jsonrpc"] == .string("2.0") else {
            return Self.errorResponse(.invalidRequest("'jsonrpc' must be \"2.0\""), id: id ?? .null)
        }
        guard case let .string(name)? = fields["method"] else {
            return Self.errorResponse(.invalidRequest("'method' must be a string"), id: id ?? .null)
        }
        let params: JSONValue
        switch fields["params"] {
        case nil: params = .object([:])
        case let .object(object)?: params = .object(object)
        default: return Self.errorResponse(.invalidParams("'params' must be an object (named parameters)"), id: id ?? .null)
        }
        let result: Result<JSONValue, RPCError>
        if let method = methods.methods[name] {
            do { result = .success(try await method.handler(params, call)) } catch let error as RPCError { result = .failure(error) } catch {
                result = .failure(translate(error))
            }
        } else {
            result = .failure(.methodNotFound(name))
        }
        // A notification (no id) is never answered, even when it failed.
        guard let id else { return nil }
        switch result {
        case let .success(value): return .object(["jsonrpc": .string("2.0"), "result": value, "id": id])
        case let .failure(error): return Self.errorResponse(error, id: id)
        }
    }

    static func errorResponse(_ error: RPCError, id: JSONValue) -> JSONValue {
        var body: [String: JSONValue] = ["code": .number(Double(error.code)), "message": .string(error.message)]
        if let data = error.data { body["data"] = data }
        return .object(["jsonrpc": .string("2.0"), "error": .object(body), "id": id])
    }
}

/// Linux's `struct ucred`, which Swift's Glibc module leaves out (it needs _GNU_SOURCE).
private struct PeerCredentialsLayout: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// The connections a server has open; once closed, it takes no more.
private final class OpenConnections: Sendable {
    private let state = Mutex<(channels: [ObjectIdentifier: any Channel], closed: Bool)>(([:], false))

    func insert(_ channel: any Channel) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.channels[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    func remove(_ channel: any Channel) {
        _ = state.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func closeAll() {
        for channel in state.withLock({ state in
            state.closed = true
            defer { state.channels.removeAll() }
            return Array(state.channels.values)
        }) { channel.close(promise: nil) }
    }
}

/// What a connection's methods started to outlive their answer, cancelled
/// together when the connection closes.
private final class ConnectionTasks: Sendable {
    private let tasks = Mutex<(running: [Task<Void, Never>], closed: Bool)>(([], false))

    func start(_ work: @escaping @Sendable () async -> Void) {
        let task = Task { await work() }
        let closed = tasks.withLock { tasks in
            if !tasks.closed { tasks.running.append(task) }
            return tasks.closed
        }
        if closed { task.cancel() }
    }

    func cancelAll() {
        for task in tasks.withLock({ tasks in
            tasks.closed = true
            defer { tasks.running.removeAll() }
            return tasks.running
        }) { task.cancel() }
    }
}

/// Work a method spawned while it answered, held until the answer is
/// written (RPCMethods.Call.spawn).
private final class WorkAfterAnswer: Sendable {
    private let held = Mutex<[@Sendable () async -> Void]>([])

    func add(_ work: @escaping @Sendable () async -> Void) {
        held.withLock { $0.append(work) }
    }

    func start(on tasks: ConnectionTasks) {
        for work in held.withLock({ held in defer { held.removeAll() }; return held }) { tasks.start(work) }
    }
}

/// Writes whole lines to one connection, one at a time.
private actor LineWriter {
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>

    init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) { self.outbound = outbound }

    func send(_ message: JSONValue) async throws {
        try await outbound.write(ByteBuffer(string: message.description + "\n"))
    }
}
