import Foundation
import Glibc
import HushSubprocess
import Testing

/// `Subprocess`, which starts every other program Hush and its tests run
/// (hooks, notify-send, the demo's relay and users, relays and tools in tests).
@Suite struct SubprocessTests {
    @Test func aRunReturnsTheStatusAndBothStreamsApart() throws {
        let result = try Subprocess.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(result.status == 3)
        #expect(result.stdout == "out\n")
        #expect(result.stderr == "err\n")

        let merged = try Subprocess.run("/bin/sh", ["-c", "echo out; echo err >&2"], mergingErrors: true)
        #expect(merged.status == 0 && merged.stdout == "out\nerr\n" && merged.stderr.isEmpty)
    }

    @Test func inputReachesTheChildAndWithoutItTheChildReadsNothing() throws {
        #expect(try Subprocess.run("/bin/cat", [], input: "line one\nline two\n").stdout == "line one\nline two\n")
        // Standard input is /dev/null, never the test runner's: `cat` ends at once.
        #expect(try Subprocess.run("/bin/cat", []).stdout.isEmpty)
        // An input larger than a pipe holds, while the child writes as much back: neither side blocks.
        let large = String(repeating: "0123456789abcdef\n", count: 64 * 1024)
        #expect(try Subprocess.run("/bin/cat", [], input: large).stdout == large)
    }

    @Test func theEnvironmentIsTheOneGiven() throws {
        let result = try Subprocess.run("/usr/bin/env", [], environment: ["ONLY": "this"])
        #expect(result.stdout == "ONLY=this\n")
    }

    /// The child holds 0, 1 and 2 and nothing else of this process, not even a
    /// descriptor opened without close-on-exec (a hook must not inherit
    /// `hush listen`'s relay connection or database).
    @Test func theChildInheritsNoOtherDescriptor() throws {
        let leaky = open("/dev/null", O_RDONLY)   // deliberately without O_CLOEXEC
        #expect(leaky > 2)
        defer { close(leaky) }
        // `ls` lists its own descriptors: 0, 1, 2 and the one it reads the directory with.
        let listed = try Subprocess.run("/bin/ls", ["/proc/self/fd"]).stdout.split(separator: "\n").compactMap { Int32($0) }.sorted()
        #expect(listed == [0, 1, 2, 3], "the child held \(listed)")
    }

    @Test func aSignalledChildIsReportedAsSuch() throws {
        let child = try Subprocess("/bin/sleep", ["30"], output: .nullDevice)
        #expect(child.isRunning)
        #expect(child.waitForExit(seconds: 0.2) == nil)
        child.send(SIGKILL)
        #expect(child.waitForExit() == .signalled(SIGKILL))
        #expect(child.termination?.status == 128 + SIGKILL)
        #expect(!child.isRunning)
        // Reaped: a later signal goes nowhere (its pid may be another process's by now).
        child.send(SIGKILL)
    }

    /// A child that ignores SIGTERM (as `hush listen` does, and as an ignored
    /// signal stays across exec) is still stopped.
    @Test func stopEndsAChildThatIgnoresTerm() throws {
        let child = try Subprocess("/bin/sh", ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"])
        var seen = ""
        #expect(child.readOutputLine(startingWith: "ready", seen: &seen) == "ready")
        #expect(child.stop(grace: 0.5) == .signalled(SIGKILL))
    }

    @Test func aLineIsFoundAmongOthersAndTheEndOfOutputIsNil() throws {
        let child = try Subprocess("/bin/sh", ["-c", "echo starting; printf 'listening on 1'; sleep 0.2; echo 234; echo after"])
        var seen = ""
        #expect(child.readOutputLine(startingWith: "listening on ", seen: &seen) == "listening on 1234")
        child.discardOutput()
        #expect(child.waitForExit() == .exited(0))

        let quiet = try Subprocess("/bin/sh", ["-c", "echo something else"])
        #expect(quiet.readOutputLine(startingWith: "listening on ", seen: &seen) == nil)
        #expect(seen == "something else\n")
    }

    @Test func aProgramThatDoesNotExistIsAnErrorThatNamesIt() {
        #expect {
            try Subprocess("/nonexistent/program", [])
        } throws: { error in
            "\(error)".contains("cannot start /nonexistent/program") && "\(error)".contains("No such file")
        }
    }

    /// Foundation's `Process.run` crashed full test runs (SIGSEGV reading past
    /// its /proc/self/fd buffer, fixed upstream after Swift 6.3), and `hush
    /// listen` running hooks is exposed the same way: nothing in the package uses it.
    @Test func nothingStartsAProgramThroughFoundationsProcess() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let use = try Regex(#"(^|[^\w.])Process\(\)|:\s*Process\b|\bPipe\(\)"#)
        var offenders: [String] = []
        var scanned = 0
        for top in ["Sources", "Tests", "Benchmarks", "Examples"] {
            let directory = root.appendingPathComponent(top)
            for case let file as String in FileManager.default.enumerator(atPath: directory.path) ?? NSEnumerator()
            where file.hasSuffix(".swift") && !file.hasSuffix("SubprocessTests.swift") {
                let text = try String(contentsOfFile: directory.appendingPathComponent(file).path, encoding: .utf8)
                scanned += 1
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(use) {
                    offenders.append("\(top)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(scanned > 300, "the sources were not found under \(root.path)")
        #expect(offenders.isEmpty, "start programs with Subprocess:\n\(offenders.joined(separator: "\n"))")
    }
}
