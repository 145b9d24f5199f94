import Foundation
import Glibc
import Testing
@testable import hush

@Suite struct EventHooksTests {
    /// A command that neither reads its (long) event nor exits is stopped after
    /// the timeout: writing the event past the pipe's buffer does not hang the hooks.
    @Test func aHookThatDoesNotReadALongEventIsStoppedAfterTheTimeout() {
        let hooks = EventHooks(notifySend: nil, notifyText: false, command: "exec sleep 60", timeoutSeconds: 1)
        let started = Date()
        hooks.handle(.connection(online: true), json: String(repeating: "x", count: 256 * 1024))
        let drained = DispatchSemaphore(value: 0)
        Thread {
            hooks.drain()
            drained.signal()
        }.start()
        #expect(drained.wait(timeout: .now() + 30) == .success, "drain() hung on a hook that does not read its input")
        #expect(Date().timeIntervalSince(started) < 30)
    }

    /// Behind a slow hook, at most `maximumWaiting` events wait; the oldest are dropped, the newest run.
    @Test func eventsWaitingBehindASlowHookAreBounded() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("events").path
        let hooks = EventHooks(notifySend: nil, notifyText: false, command: "cat >> '\(log)'; sleep 0.2", maximumWaiting: 3)
        for index in 1...10 { hooks.handle(.connection(online: true), json: "event \(index)") }
        hooks.drain()
        let ran = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(ran.count <= 4, "\(ran)")
        #expect(ran.last == "event 10", "\(ran)")
    }

    /// A hook is someone else's code: it gets its event on standard input and no
    /// other open descriptor of this process (here one opened without
    /// close-on-exec, as a database or a socket could be). ListenTests checks
    /// that it gets no passphrase.
    @Test func aHookHoldsNoDescriptorOfHush() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = directory.appendingPathComponent("report").path
        let open = Glibc.open("/dev/null", O_RDONLY)   // deliberately without O_CLOEXEC
        defer { close(open) }
        // `ls` lists its own descriptors: 0, 1 (the report), 2 and the one it reads the directory with.
        let hooks = EventHooks(notifySend: nil, notifyText: false,
                               command: "read event; { echo \"$event\"; ls /proc/self/fd; } > '\(report)'")
        hooks.handle(.connection(online: true), json: "the event")
        hooks.drain()
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "the event", "\(lines)")
        #expect(lines.dropFirst().compactMap { Int32($0) }.sorted() == [0, 1, 2, 3], "the hook held \(lines.dropFirst())")
    }
}
