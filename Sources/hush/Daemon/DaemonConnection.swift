import Foundation
import HushDaemon

/// A client's connection to a daemon's socket: plain blocking POSIX calls,
/// so that a command handed to the daemon starts no event loop of its own.
/// Owns its descriptor and closes it exactly once.
final class DaemonConnection {
    private var descriptor: Int32
    private var buffered: [UInt8] = []

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close() }

    /// Connects to the daemon of the account in `home`, or returns nil when
    /// none answers (no socket file, a stale one, or a path too long).
    static func connect(home: String) -> DaemonConnection? {
        let path = DaemonSocket.path(home: home)
        guard path.utf8.count <= DaemonSocket.maximumPathLength else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
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
            Glibc.close(descriptor)
            return nil
        }
        return DaemonConnection(descriptor: descriptor)
    }

    /// Ends both directions without releasing the descriptor: a read blocked
    /// on another thread returns (close() alone would not wake it, and would
    /// free the number for reuse under it).
    func shutdown() {
        guard descriptor >= 0 else { return }
        Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Sends one message (a line of JSON).
    func send(_ message: JSONValue) throws {
        let bytes = Array((message.description + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw Failure(description: "the daemon closed the connection (\(String(cString: strerror(errno))))") }
            offset += written
        }
    }

    /// The next message from the daemon, or nil when it closed the connection.
    func receive() throws -> JSONValue? {
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffered[..<newline])
                buffered.removeSubrange(...newline)
                return try JSONValue(parsing: line)
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
    func call(_ method: String, _ params: JSONValue = .object([:]),
              notification: (String, JSONValue) -> Void = { _, _ in }) throws -> JSONValue {
        try send(.object(["jsonrpc": .string("2.0"), "id": .number(1), "method": .string(method), "params": params]))
        while let message = try receive() {
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
        throw Failure(description: "the daemon closed the connection before it answered (it may have stopped): try again")
    }
}
