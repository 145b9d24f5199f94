import Foundation
import HushDaemon
import Testing

/// A daemon that takes a command and closes before answering (killed
/// mid-send) leaves its outcome unknown: the client must not say the command
/// did not run and to try again (a walkthrough followed that advice and sent
/// messages twice).
@Suite struct DaemonUnansweredTests {
    @Test func aRequestTheDaemonClosedOnIsUnansweredNotRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("unanswered-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/d.sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0 && listen(listener, 1) == 0)
        // The "daemon": reads the request, then goes away without a word.
        let daemon = Thread {
            let client = accept(listener, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 4_096)
            _ = read(client, &buffer, buffer.count)
            close(client)
        }
        daemon.start()

        let connection = try DaemonConnection.connect(socket: path)
        #expect(throws: DaemonConnection.Unanswered.self) {
            _ = try connection.call("cli.run", .object(["argv": .array([.string("send")])]))
        }
    }
}
