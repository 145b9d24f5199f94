import Foundation
import Testing
@testable import hush

/// A command's output through the daemon: gathered into few notifications,
/// never reordered, nothing lost.
@Suite struct CoalescedOutputTests {
    @Test func linesWrittenWhileNothingIsSentGoOutTogetherInOrder() async {
        let output = CoalescedOutput()
        for index in 0..<4_000 { output.write(.stdout, "line \(index)\n") }
        output.write(.stderr, "warning\n")
        output.write(.stdout, "after\n")
        output.finish()
        var sent: [(CommandOutput.Stream, String)] = []
        await output.forward { stream, text in sent.append((stream, text)) }
        let expected = (0..<4_000).map { "line \($0)\n" }.joined()
        // About 64 KiB per notification: 4,000 lines of at most 10 bytes are a single one.
        #expect(sent.count == 3, "\(sent.count) notifications")
        #expect(sent.map(\.0) == [.stdout, .stderr, .stdout])
        #expect(sent.map(\.1) == [expected, "warning\n", "after\n"])
    }

    @Test func aLongOutputIsCutIntoChunksOfAboutSixtyFourKiB() async {
        let output = CoalescedOutput()
        let line = String(repeating: "x", count: 1_023) + "\n"
        for _ in 0..<200 { output.write(.stdout, line) }
        output.finish()
        var sent: [String] = []
        await output.forward { _, text in sent.append(text) }
        #expect(sent.joined() == String(repeating: line, count: 200))
        #expect(sent.count == 4, "\(sent.map(\.utf8.count))")
        #expect(sent.allSatisfy { $0.utf8.count <= CoalescedOutput.chunkBytes + line.utf8.count })
    }

    @Test func whatIsWrittenWhileForwardingArrivesToo() async {
        let output = CoalescedOutput()
        let forwarding = Task {
            var texts: [String] = []
            await output.forward { _, text in texts.append(text) }
            return texts.joined()
        }
        for index in 0..<500 {
            output.write(.stdout, "\(index)\n")
            if index % 50 == 0 { await Task.yield() }
        }
        output.finish()
        #expect(await forwarding.value == (0..<500).map { "\($0)\n" }.joined())
    }
}

/// The bound: a slow client holds its command back instead of filling the
/// daemon's memory, and a client that hangs up never leaves one waiting.
@Suite struct BoundedOutputTests {
    static let line = String(repeating: "y", count: 1_023) + "\n"

    /// Writes `count` lines to `output` on a thread of its own (as a command
    /// on its `CommandThread`); `done` is set when the last write returned.
    static func produce(_ output: CoalescedOutput, lines count: Int, done: Flag) {
        Thread.detachNewThread {
            for _ in 0..<count { output.write(.stdout, line) }
            done.set()
        }
    }

    final class Flag: @unchecked Sendable {
        private let condition = NSCondition()
        private var value = false
        func set() { condition.lock(); value = true; condition.broadcast(); condition.unlock() }
        /// Whether it was set within `seconds` (blocks the caller's thread).
        func wait(seconds: Double) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: seconds)
            while !value && condition.wait(until: deadline) {}
            return value
        }
    }

    /// Whether `flag` was set within `seconds`, waited for on a thread of
    /// its own: a starved shared pool could not even run a timer.
    static func waited(for flag: Flag, seconds: Double) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: flag.wait(seconds: seconds)) }
        }
    }

    @Test func aSlowClientHoldsTheCommandBackInsteadOfTheDaemonsMemory() async throws {
        // 1 MiB written, 64 KiB allowed to wait: 16 times the bound, and few enough notifications that
        // a loaded machine (each 1 ms sleep taking tens of ms) still finishes well within the wait.
        let limit = 64 * 1024, lines = 1_024
        let output = CoalescedOutput(limit: limit)
        let done = Flag()
        Self.produce(output, lines: lines, done: done)
        // The client reads a notification every millisecond or so.
        let forwarding = Task {
            var received = 0
            var whole = true
            await output.forward { _, text in
                try await Task.sleep(for: .milliseconds(1))
                received += text.utf8.count
                whole = whole && text.utf8.count % Self.line.utf8.count == 0
            }
            return (received, whole)
        }
        #expect(await Self.waited(for: done, seconds: 120), "the command never finished writing")
        output.finish()
        let (received, inOrder) = await forwarding.value
        #expect(received == lines * Self.line.utf8.count)
        #expect(inOrder)
        // Without the bound the command writes all 1 MiB before the client has read much of it.
        #expect(output.highestUnsentBytes <= limit + Self.line.utf8.count,
                "\(output.highestUnsentBytes) bytes waited for the client at once (limit \(limit))")
    }

    @Test func aClientThatHangsUpLetsTheCommandFinishAndItsOutputIsDropped() async throws {
        let output = CoalescedOutput(limit: 64 * 1024)
        let done = Flag()
        Self.produce(output, lines: 4_096, done: done)
        let forwarding = Task {
            var sends = 0
            await output.forward { _, _ in
                sends += 1
                if sends == 2 { throw CancellationError() }  // the connection is closed
            }
            return sends
        }
        // 120 s, as above: once, with a clean-clone CI run, a build and another test run on two cores, 30 s passed.
        #expect(await Self.waited(for: done, seconds: 120), "the command still waits for a client that is gone")
        output.finish()
        let sends = await forwarding.value
        #expect(sends == 2, "\(sends) sends: nothing is sent after the first that failed")
    }

    @Test func aCancelledCommandWaitingForRoomGoesOn() async throws {
        // No client reads at all: the command waits, until its call is cancelled.
        let output = CoalescedOutput(limit: 64 * 1024)
        let done = Flag()
        Self.produce(output, lines: 1_024, done: done)
        #expect(await !Self.waited(for: done, seconds: 0.5), "the command wrote 1 MiB with nobody reading")
        output.discard()
        #expect(await Self.waited(for: done, seconds: 120))
    }

    @Test func commandsWaitingForSlowClientsLeaveTheSharedThreadsFree() async throws {
        // More commands than Swift's shared pool has threads, each writing
        // more than its bound before its client starts reading: on that pool
        // they would hold every thread, and no forwarding could run.
        let commands = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let finished = Flag()
        let count = Counter()
        let outputs = (0..<commands).map { _ in CoalescedOutput(limit: 16 * 1024) }
        for output in outputs {
            Task.detached {
                let thread = CommandThread()
                let forwarding = Task {
                    try? await Task.sleep(for: .milliseconds(200))
                    await output.forward { _, _ in }
                }
                await withTaskExecutorPreference(thread) {
                    for _ in 0..<256 { output.write(.stdout, Self.line) }
                }
                thread.stop()
                output.finish()
                await forwarding.value
                if count.increment() == commands { finished.set() }
            }
        }
        // Waited for on a thread of its own, which on failure lets the
        // commands go (their clients hang up), so that the pool recovers and
        // this test can report. A deadlock never ends; the bound is wide
        // because the suites beside this one share the same pool and two
        // cores (it once took more than 30 s while builds ran alongside).
        let allDone = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let done = finished.wait(seconds: 120)
                if !done { outputs.forEach { $0.discard() } }
                continuation.resume(returning: done)
            }
        }
        #expect(allDone, "\(count.value) of \(commands) commands finished")
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() -> Int { lock.lock(); defer { lock.unlock() }; count += 1; return count }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }
}
