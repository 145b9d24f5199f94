import Foundation

/// A client's connection to a daemon's socket: plain blocking POSIX calls,
/// so that a command handed to the daemon starts no event loop of its own
/// (`hush`, the benchmark and the tests all use it). Owns its descriptor and
/// closes it exactly once.
public final class DaemonConnection {
    private var descriptor: Int32
    private var buffered: [UInt8] = []

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    /// Connects to the daemon of the account in `home`, or returns nil when
    /// none answers (no socket file, a stale one, or a path too long).
    public static func connect(home: String) -> DaemonConnection? {
        try? connect(socket: DaemonSocket.path(home: home))
    }

    /// Connects to the socket at `path`, or says why not.
    public static func connect(socket path: String) throws -> DaemonConnection {
        guard path.utf8.count <= DaemonSocket.maximumPathLength else { throw Failure(description: "\(path) is too long for a Unix socket") }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8)
            raw[path.utf8.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw Failure(description: "connect \(path): \(reason)")
        }
        return DaemonConnection(descriptor: descriptor)
    }

    /// Ends both directions without releasing the descriptor: a read blocked
    /// on another thread returns (close() alone would not wake it, and would
    /// free the number for reuse under it).
    public func shutdown() {
        guard descriptor >= 0 else { return }
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Ends what this side sends (the peer reads the end of input) and
    /// keeps reading: the daemon still answers what was sent before.
    public func endSending() {
        guard descriptor >= 0 else { return }
        Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    public func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Sends one message (a line of JSON).
    public func send(_ message: JSONValue) throws {
        try send(line: message.description)
    }

    /// Sends one line as it is (a newline is added).
    public func send(line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a daemon that closed the connection (a refusal) is an error here, not SIGPIPE.
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw Failure(description: "the daemon closed the connection (\(String(cString: strerror(errno))))") }
            offset += written
        }
    }

    /// The next message from the daemon, or nil when it closed the connection.
    /// With `deadline`, `TimedOut` once it passes with no whole message.
    public func receive(before deadline: ContinuousClock.Instant? = nil) throws -> JSONValue? {
        try receiveLine(before: deadline).map { try JSONValue(parsing: Data($0.utf8)) }
    }

    /// No answer came by the deadline: the daemon runs but does not read
    /// (stopped with Ctrl-Z or SIGSTOP, or stuck).
    public struct TimedOut: Error, CustomStringConvertible {
        public var description: String { "the daemon did not answer in time" }
    }

    /// The next line from the daemon, without its newline, or nil when it closed the connection.
    public func receiveLine(before deadline: ContinuousClock.Instant? = nil) throws -> String? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                let milliseconds = max(0, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let polled = poll(&ready, 1, milliseconds)
                if polled < 0 && errno == EINTR { continue }
                if polled == 0 { throw TimedOut() }
            }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffered.append(contentsOf: chunk[..<count])
        }
    }

    /// Calls `method` and returns its result, handing notifications that
    /// arrive first to `notification`. A JSON-RPC error is thrown as `RPCError`.
    /// With `timeout`, throws `TimedOut` when the answer has not come by then.
    public func call(_ method: String, _ params: JSONValue = .object([:]), timeout: Duration? = nil,
              notification: (String, JSONValue) -> Void = { _, _ in }) throws -> JSONValue {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        do {
            try send(.object(["jsonrpc": .string("2.0"), "id": .number(1), "method": .string(method), "params": params]))
        } catch {
            // The daemon may have answered (a refusal) and closed before reading the request: say what it said.
            if let answer = try? receive(), let refusal = answer["error"] {
                throw RPCError(code: Int(refusal["code"]?.integerValue ?? -32603), message: refusal["message"]?.stringValue ?? "refused")
            }
            throw error
        }
        while let message = try receive(before: deadline) {
            if let name = message["method"]?.stringValue {
                notification(name, message["params"] ?? .null)
                continue
            }
            if let error = message["error"] {
                throw RPCError(code: Int(error["code"]?.integerValue ?? -32603), message: error["message"]?.stringValue ?? "the daemon failed",
                               data: error["data"])
            }
            return message["result"] ?? .null
        }
        throw Unanswered()
    }

    /// The request went to the daemon, which closed the connection before it
    /// answered (it stopped, or was killed): the command may have run, in
    /// part or whole. Not a failure to retry blindly.
    public struct Unanswered: Error, CustomStringConvertible {
        public var description: String { "the daemon closed the connection before it answered (it may have stopped)" }
    }
}
