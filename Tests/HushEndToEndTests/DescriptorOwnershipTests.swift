import Foundation
import Glibc
import Testing

/// The test process shares descriptor numbers with NIO, and a number is
/// reused the moment it is closed: a test double that closes one twice, or
/// shuts down one that another thread already closed, hits whatever took the
/// number meanwhile. `make test` once died of it, with NIO's "unacceptable
/// errno 9 Bad file descriptor in read()" (issue 29, item 6).
@Suite struct DescriptorOwnershipTests {
    /// Whether `fd` is an open descriptor of this process.
    static func isOpen(_ fd: Int32) -> Bool { fcntl(fd, F_GETFD) != -1 }

    /// Whether a pipe still carries a byte from its write end to its read end.
    static func works(_ pipe: (read: Int32, write: Int32)) -> Bool {
        var byte: UInt8 = 0
        return write(pipe.write, "x", 1) == 1 && read(pipe.read, &byte, 1) == 1 && byte == UInt8(ascii: "x")
    }

    /// Takes the number `fd` once it is free, by opening pipes until one end
    /// gets it (never by closing anything): that pipe's two ends, or nil if
    /// something else took the number first.
    static func takeOver(_ fd: Int32) -> (read: Int32, write: Int32)? {
        let deadline = Date().addingTimeInterval(5)
        while isOpen(fd) {
            guard Date() < deadline else { return nil }
            usleep(1_000)
        }
        var unwanted: [Int32] = []
        defer { for other in unwanted { close(other) } }
        for _ in 0..<256 {
            var pair: [Int32] = [0, 0]
            guard pipe(&pair) == 0 else { return nil }
            if pair.contains(fd) { return (pair[0], pair[1]) }
            unwanted += pair
            if pair.allSatisfy({ $0 > fd }) { return nil }
        }
        return nil
    }

    /// Runs `check` on fresh doubles until one freed number could be taken
    /// over (another suite may take a number first); a test that never got to
    /// look fails instead of passing without having checked anything.
    static func untilTakenOver(_ check: () throws -> Bool) throws {
        for _ in 0..<8 where try check() { return }
        Issue.record("no freed descriptor number could be taken over in 8 tries: nothing was checked")
    }

    @Test func stoppingATestDoubleTwiceClosesNothingElse() throws {
        try Self.untilTakenOver {
            let hole = try BlackHole(port: 0)
            let connection = try LoopbackSocket.connect(port: hole.port)
            defer { close(connection) }
            #expect(hole.waitForConnection(timeout: 10))
            let number = hole.listenerNumber
            hole.stop()
            guard let pipe = Self.takeOver(number) else { return false }   // another suite took the number first
            defer { close(pipe.read); close(pipe.write) }
            hole.stop()   // and again from deinit
            #expect(Self.isOpen(number) && Self.works(pipe), "the second stop closed descriptor \(number), which belongs to someone else now")
            return true
        }
    }

    @Test func aProxyShutsDownOnlyConnectionsItStillHolds() throws {
        try Self.untilTakenOver {
            let hole = try BlackHole(port: 0)
            defer { hole.stop() }
            let proxy = try FaultProxy(forwardingTo: hole.port, odds: FaultProxy.Odds(), seed: 1)
            // A client that connects and leaves at once: the proxy's serving thread is done with it.
            let client = try LoopbackSocket.connect(port: proxy.port)
            close(client)
            let number = proxy.listenerNumber
            proxy.stop()
            guard let pipe = Self.takeOver(number) else { return false }
            defer { close(pipe.read); close(pipe.write) }
            proxy.stop()
            #expect(Self.isOpen(number) && Self.works(pipe), "stopping the proxy again closed descriptor \(number), which belongs to someone else now")
            return true
        }
    }
}
