import Foundation
import Glibc

/// Plain POSIX TCP on 127.0.0.1, for the test doubles below.
enum LoopbackSocket {
    static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// A listening socket on `port` (0: any free port); returns it with the port it got.
    static func listen(port: Int) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = address(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let error = errno
            close(fd)
            throw HarnessError("cannot listen on 127.0.0.1:\(port): errno \(error)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: actual.sin_port)))
    }

    /// Connects to 127.0.0.1:`port`, from the loopback address `source`
    /// when given (all of 127.0.0.0/8 reaches the loopback interface, so one
    /// machine can act as many client addresses).
    static func connect(port: Int, from source: String? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed: errno \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let error = errno
                close(fd)
                throw HarnessError("cannot bind to \(source): errno \(error)")
            }
        }
        var address = address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            throw HarnessError("cannot connect to 127.0.0.1:\(port): errno \(error)")
        }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    /// Reads whatever arrives next; empty at the end of the stream or on error.
    static func readSome(_ fd: Int32) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Array(buffer[..<count]) : []
    }
}

/// A listener that accepts connections and never answers: a relay that hangs.
/// A client that connects to it blocks until its own timeout.
final class BlackHole: @unchecked Sendable {
    let port: Int
    /// The listener and every swallowed connection, shut down and closed by `stop`.
    private let sockets: OpenSockets
    private let lock = NSLock()
    private var swallowedCount = 0
    /// Signalled once per connection swallowed.
    private let swallowed = DispatchSemaphore(value: 0)

    init(port: Int) throws {
        let (fd, port) = try LoopbackSocket.listen(port: port)
        self.port = port
        sockets = OpenSockets(listener: SharedDescriptor(fd, users: 2))
        sockets.acceptEach { [self] accepted in
            // Owned by `sockets` alone: never read, closed at `stop`.
            sockets.track(SharedDescriptor(accepted, users: 1))
            lock.withLock { swallowedCount += 1 }
            swallowed.signal()
        }
    }

    /// How many connections it has swallowed.
    var connections: Int { lock.withLock { swallowedCount } }

    /// The listening socket's number (tests of the descriptors' ownership).
    var listenerNumber: Int32 { sockets.listenerNumber }

    /// Waits for the next connection; false when none came within `timeout` seconds.
    func waitForConnection(timeout: Double) -> Bool {
        swallowed.wait(timeout: .now() + timeout) == .success
    }

    /// Closes the listener and every swallowed connection; only the first call does anything.
    func stop() { sockets.stop() }

    deinit { stop() }
}

/// A TCP forwarder between a `hush` client and the real relay that keeps a
/// copy of everything the client sent, so a test can lift a genuine sealed
/// envelope off the wire (as anyone on the network path could). Given
/// several relays it is a load balancer with failover: each connection goes
/// to the first relay that accepts it.
final class RecordingProxy: @unchecked Sendable {
    let port: Int
    private let lock = NSLock()
    private var sent = [UInt8]()
    private let connections: OpenSockets
    private var acksRefused = false

    /// While true, a connection that carries an acknowledgement
    /// (`POST …/ack`) is cut before the relay sees it: a client that dies
    /// between its commit and its ack, as the relay experiences it.
    var refuseAcknowledgements: Bool {
        get { lock.withLock { acksRefused } }
        set { lock.withLock { acksRefused = newValue } }
    }

    convenience init(forwardingTo target: Int) throws {
        try self.init(balancing: [target])
    }

    init(balancing targets: [Int]) throws {
        (port, connections) = try OpenSockets.listening()
        connections.acceptEach { [self] accepted in
            guard let connected = targets.lazy.compactMap({ try? LoopbackSocket.connect(port: $0) }).first else { close(accepted); return }
            // Each is used by both pumps and by `connections`.
            let client = SharedDescriptor(accepted, users: 3), upstream = SharedDescriptor(connected, users: 3)
            connections.track(client, upstream)
            pump(from: client, to: upstream, record: true)
            pump(from: upstream, to: client, record: false)
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    private func pump(from source: SharedDescriptor, to destination: SharedDescriptor, record: Bool) {
        Thread.detachNewThread { [self] in
            defer {
                source.release()
                destination.release()
            }
            while true {
                let bytes = LoopbackSocket.readSome(source.fd)
                if bytes.isEmpty { break }
                if record, refuseAcknowledgements, String(decoding: bytes, as: UTF8.self).contains("/ack HTTP/1.1") {
                    shutdown(source.fd, Int32(SHUT_RDWR))
                    break
                }
                if record { lock.withLock { sent += bytes } }
                if !LoopbackSocket.writeAll(destination.fd, bytes) { break }
            }
            shutdown(destination.fd, Int32(SHUT_WR))
        }
    }

    /// The sealed envelopes of every deposit that went through, in order.
    /// Envelopes of the deposits that went through, in either deposit form:
    /// the binary one (raw body, `application/octet-stream`) or the JSON one
    /// (base64 in "envelope"). Walks the recorded bytes request by request.
    var depositedEnvelopes: [[UInt8]] {
        let bytes = lock.withLock { sent }
        var envelopes: [[UInt8]] = []
        var offset = 0
        while let (header, bodyStart, length) = HTTPStreamReader.head(in: bytes, at: offset) {
            let body = Array(bytes[bodyStart..<min(bodyStart + length, bytes.count)])
            if header.hasPrefix("POST "), header.components(separatedBy: "\r\n").first?.contains("/messages") == true {
                if header.lowercased().contains("application/octet-stream") {
                    envelopes.append(body)
                } else if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
                          let base64 = object["envelope"] as? String, let data = Data(base64Encoded: base64) {
                    envelopes.append([UInt8](data))
                }
            }
            offset = bodyStart + length
        }
        return envelopes
    }

    func stop() { connections.stop() }

    deinit { stop() }
}

/// One HTTP/1.1 request over a fresh connection, the way any client on the
/// network could talk to the relay (no Hush code involved).
enum RawHTTP {
    struct Response {
        let status: Int
        let body: String
        /// Header fields, names lower-cased.
        var headers: [String: String] = [:]
    }

    static func post(port: Int, path: String, json body: String) throws -> Response {
        let payload = Array(body.utf8)
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n" +
            "Content-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        return try exchange(port: port, Array(head.utf8) + payload)
    }

    static func get(port: Int, path: String) throws -> Response {
        try exchange(port: port, Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8))
    }

    /// Sends `request` on a fresh connection and reads the response until the relay closes it.
    static func exchange(port: Int, _ request: [UInt8], from source: String? = nil) throws -> Response {
        let fd = try LoopbackSocket.connect(port: port, from: source)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard LoopbackSocket.writeAll(fd, request) else { throw HarnessError("could not send the request") }
        var response = [UInt8]()
        while true {
            let bytes = LoopbackSocket.readSome(fd)
            if bytes.isEmpty { break }
            response += bytes
        }
        let text = String(decoding: response, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let statusLine = parts.first?.split(separator: "\r\n").first ?? ""
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, let status = Int(fields[1]) else { throw HarnessError("no HTTP response: \(text)") }
        var headers: [String: String] = [:]
        for line in (parts.first ?? "").split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, body: parts.dropFirst().joined(separator: "\r\n\r\n"), headers: headers)
    }
}

/// The listening socket of a test proxy and the connections it opened:
/// `stop` shuts them all down, once, and lets go of its share of each (the
/// threads serving them close them when they are done; see `SharedDescriptor`).
final class OpenSockets: @unchecked Sendable {
    private let listener: SharedDescriptor
    private let lock = NSLock()
    private var sockets: [SharedDescriptor] = []
    private var stopped = false

    /// Takes one of `listener`'s users.
    init(listener: SharedDescriptor) { self.listener = listener }

    /// A socket listening on a free loopback port, shared between the
    /// returned `OpenSockets` and the thread `acceptEach` starts (call it once).
    static func listening() throws -> (port: Int, sockets: OpenSockets) {
        let (fd, port) = try LoopbackSocket.listen(port: 0)
        return (port, OpenSockets(listener: SharedDescriptor(fd, users: 2)))
    }

    /// Accepts connections on a thread of its own until `stop`, handing each
    /// new descriptor to `handle`, which owns it from then on.
    func acceptEach(_ handle: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread { [listener] in
            defer { listener.release() }
            while true {
                let accepted = accept(listener.fd, nil, nil)
                if accepted < 0 {
                    if errno == EINTR { continue }
                    return
                }
                handle(accepted)
            }
        }
    }

    /// `acceptEach`, every connection served by `serve` on a thread of its
    /// own, then shut down and closed (or at `stop`, whichever comes first).
    func serveEach(_ serve: @escaping @Sendable (Int32) -> Void) {
        acceptEach { [self] accepted in
            // Used by the thread serving it and by `self`.
            let client = SharedDescriptor(accepted, users: 2)
            track(client)
            Thread.detachNewThread {
                defer {
                    client.shutDown()
                    client.release()
                }
                serve(client.fd)
            }
        }
    }

    /// The listening socket's number (tests of the descriptors' ownership).
    var listenerNumber: Int32 { listener.fd }

    /// Takes one user of each; after `stop`, they are shut down and let go at once.
    func track(_ descriptors: SharedDescriptor...) {
        let late = lock.withLock { () -> Bool in
            if !stopped { sockets += descriptors }
            return stopped
        }
        if late {
            for descriptor in descriptors {
                descriptor.shutDown()
                descriptor.release()
            }
        }
    }

    func stop() {
        let descriptors = lock.withLock { () -> [SharedDescriptor]? in
            guard !stopped else { return nil }
            stopped = true
            defer { sockets.removeAll() }
            return sockets
        }
        guard let descriptors else { return }
        listener.shutDown()
        listener.release()
        for descriptor in descriptors {
            descriptor.shutDown()
            descriptor.release()
        }
    }
}
