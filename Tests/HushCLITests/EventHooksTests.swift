import Foundation
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
}
