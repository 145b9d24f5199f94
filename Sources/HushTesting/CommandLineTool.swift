import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Another program run to its end, as a user or an operator would run it
/// (the sqlcipher command line, openssl, the built `hush`): its exit status
/// and everything it printed.
///
/// Started with posix_spawn, not Foundation's `Process`: `Process.run` reads
/// /proc/self/fd with a memcpy past its buffer when the test process holds
/// many descriptors, which crashed a full `make test` (signal 11 in
/// `Process.run`, s55 and s58). The child gets the pipes as 0, 1 and 2 and
/// no other descriptor.
public enum CommandLineTool {
    /// Runs `executable ARGUMENTS`; `input` is its standard input (empty
    /// when nil, so a tool that reads it never waits on the test's terminal).
    /// Standard output and standard error together.
    public static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let result = try spawn(executable, arguments, input: input, mergingErrors: true)
        return (result.status, result.stdout)
    }

    /// Runs `executable ARGUMENTS` with `environment` (this process's when
    /// nil) and `input` on standard input; standard error apart from standard
    /// output unless `mergingErrors`. The status is the exit code, or 128 + the
    /// signal that ended it.
    public static func spawn(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
                             mergingErrors: Bool = false) throws -> (status: Int32, stdout: String, stderr: String) {
        let output = try pipe(), errors = try pipe(), standardInput = try pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput.read, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, mergingErrors ? output.write : errors.write, 2)
        closeFrom(3, in: &actions)
        let argv = [executable] + arguments
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var child: pid_t = 0
        let started = posix_spawn(&child, executable, &actions, nil, cArguments, cEnvironment)
        for fd in [output.write, errors.write, standardInput.read] { close(fd) }
        guard started == 0 else {
            for fd in [output.read, errors.read, standardInput.write] { close(fd) }
            throw CommandLineToolError(description: "cannot start \(executable): \(String(cString: strerror(started)))")
        }
        // Standard error is read on a thread of its own while this one reads standard output
        // (a child that fills one pipe while we wait on the other would never end).
        let errorText = PipeText()
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            errorText.set(readToEnd(errors.read))
            close(errors.read)
            finished.signal()
        }
        if let input { writeAll(standardInput.write, Array(input.utf8)) }
        close(standardInput.write)
        let out = readToEnd(output.read)
        close(output.read)
        finished.wait()
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        // wait(2) status: the low 7 bits are the signal that ended it (0: it exited), bits 8-15 the exit code.
        let signal = status & 0x7f
        return (signal != 0 ? 128 + signal : (status >> 8) & 0xff, String(decoding: out, as: UTF8.self), String(decoding: errorText.value, as: UTF8.self))
    }

    /// Makes the child close every descriptor from `first` up (after the dup2s before it).
    public static func closeFrom(_ first: Int32, in actions: inout posix_spawn_file_actions_t) {
        _ = spawnFileActionsAddClosefrom(&actions, first)
    }

    /// Whether `path` is an executable file (the Debian package that has it may be missing).
    public static func isInstalled(_ path: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: path)
    }

    /// A pipe whose ends close on exec (the child gets them only as dup2'd 0, 1, 2).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else { throw CommandLineToolError(description: "pipe: \(String(cString: strerror(errno)))") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    private static func readToEnd(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return all }
            all.append(contentsOf: chunk[..<count])
        }
    }

    /// Writes `bytes` to `fd` (a pipe: write(2), not send(2)) until done or the reader went away.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }   // the child closed its input: what it read is what it gets
            offset += written
        }
    }

    /// Standard error's bytes, handed from the reading thread.
    private final class PipeText: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        var value: [UInt8] { lock.withLock { bytes } }
        func set(_ new: [UInt8]) { lock.withLock { bytes = new } }
    }
}

/// A program that could not be started.
public struct CommandLineToolError: Error, CustomStringConvertible {
    public let description: String
}

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), which the Glibc
/// module does not export (it needs _GNU_SOURCE): the child closes every
/// descriptor from `from` up.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnFileActionsAddClosefrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
