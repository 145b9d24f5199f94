import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Another program, started with posix_spawn: `hush listen --exec` hooks and
/// notify-send, the demo's relay and users, and every child a test starts.
///
/// Not Foundation's `Process`: on Linux, `Process.run` (swift-corelibs-foundation
/// before its fix of May 2026, #5472, which Swift 6.3 does not have) copies each
/// /proc/self/fd entry as a whole `dirent`, reading past the end of readdir's
/// buffer; when that buffer ends at a page boundary it crashes with SIGSEGV.
/// The more descriptors a process holds, the likelier: a full `make test`
/// crashed in it twice (s55, s58), and `hush listen` running a hook for
/// every event (`--exec`, `--notify`) is exposed the same way.
///
/// The child gets standard input, output and error as asked and no other
/// descriptor of this process (every one from 3 up is closed in it), default
/// signal dispositions and an empty signal mask, whatever this process set.
/// This value owns the parent's ends of the pipes it made, and reaps the
/// child on a thread of its own, so a caller can wait with a deadline.
public final class Subprocess: @unchecked Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        /// /dev/null: a child that reads gets end-of-file at once, never the caller's terminal.
        case nullDevice
        /// A pipe this value writes (`writeInput`, `closeInput`).
        case pipe
    }

    /// Where the child's standard output or standard error goes.
    public enum Output: Sendable {
        case nullDevice
        /// A pipe this value reads (`readOutput`, `readErrors`, …).
        case pipe
        /// This process's standard error (a hook's output goes where the user reads our messages).
        case standardError
        /// Standard error only: wherever the child's standard output goes.
        case sameAsOutput
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// As a shell reports it: the exit code, or 128 + the signal.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }

        /// From a wait(2) status: the low 7 bits are the signal that ended it (0: it exited), bits 8–15 the exit code.
        init(waitStatus: Int32) {
            let signal = waitStatus & 0x7f
            self = signal == 0 ? .exited((waitStatus >> 8) & 0xff) : .signalled(signal)
        }
    }

    public let executable: String
    public let pid: pid_t
    private let input: Descriptor?
    private let output: Descriptor?
    private let errors: Descriptor?
    private let reaped = Reaped()

    /// Starts `executable` (a path; PATH is not searched) with `arguments`
    /// and `environment` (this process's when nil).
    ///
    /// With `terminal` (the path of a pseudo-terminal's slave side) the child
    /// runs as in a terminal emulator instead: in a session of its own, with
    /// that terminal as its controlling one on 0, 1 and 2; `input`, `output`
    /// and `errors` are not used then.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                input: Input = .nullDevice, output: Output = .pipe, errors: Output = .standardError, terminal: String? = nil) throws {
        precondition(output != .sameAsOutput, "standard output cannot go where standard output goes")
        self.executable = executable
        // Every pipe end is made close-on-exec: the child gets them only as the 0, 1, 2 dup2'd below.
        var made: [Int32] = []
        func pipeIfAsked(_ asked: Bool) throws -> (read: Int32, write: Int32)? {
            guard asked else { return nil }
            let ends = try Self.pipe()
            made += [ends.read, ends.write]
            return ends
        }
        let inputPipe: (read: Int32, write: Int32)?, outputPipe: (read: Int32, write: Int32)?, errorPipe: (read: Int32, write: Int32)?
        do {
            inputPipe = try pipeIfAsked(terminal == nil && input == .pipe)
            outputPipe = try pipeIfAsked(terminal == nil && output == .pipe)
            errorPipe = try pipeIfAsked(terminal == nil && errors == .pipe)
        } catch {
            made.forEach { _ = close($0) }
            throw error
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal {
            // After setsid (POSIX_SPAWN_SETSID runs before the file actions), the first
            // terminal the child opens becomes its controlling one: resizes send it SIGWINCH.
            posix_spawn_file_actions_addopen(&actions, 0, terminal, O_RDWR, 0)
            posix_spawn_file_actions_adddup2(&actions, 0, 1)
            posix_spawn_file_actions_adddup2(&actions, 0, 2)
        } else {
            if let inputPipe {
                posix_spawn_file_actions_adddup2(&actions, inputPipe.read, 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            Self.direct(&actions, 1, output, pipe: outputPipe?.write)
            Self.direct(&actions, 2, errors, pipe: errorPipe?.write)
        }
        Self.closeFrom(3, in: &actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | (terminal == nil ? 0 : spawnSetSessionID)))

        let cArguments = ([executable] + arguments).map { strdup($0) } + [nil]
        let cEnvironment = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var child: pid_t = 0
        let started = posix_spawn(&child, executable, &actions, &attributes, cArguments, cEnvironment)
        // The child's ends: it has its own copies now (or never will).
        for end in [inputPipe?.read, outputPipe?.write, errorPipe?.write].compactMap({ $0 }) { close(end) }
        guard started == 0 else {
            for end in [inputPipe?.write, outputPipe?.read, errorPipe?.read].compactMap({ $0 }) { close(end) }
            throw SubprocessError(description: "cannot start \(executable): \(String(cString: strerror(started)))")
        }
        pid = child
        let spawned = child
        self.input = inputPipe.map { Descriptor($0.write) }
        self.output = outputPipe.map { Descriptor($0.read) }
        self.errors = errorPipe.map { Descriptor($0.read) }
        let reaped = self.reaped
        Thread.detachNewThread { reaped.reap(spawned) }
    }

    deinit {
        // Pipe ends nobody took (a reader that still reads owns its end: `take` moved it out).
        input?.close()
        output?.close()
        errors?.close()
    }

    // MARK: Standard input

    /// Writes `bytes` to the child's standard input until all are written or
    /// the child closed its end (then false: what it read is what it gets).
    @discardableResult
    public func writeInput(_ bytes: [UInt8]) -> Bool {
        guard let fd = input?.peek() else { return false }
        // A child that stops reading must not kill us with SIGPIPE: the write fails with EPIPE instead.
        signal(SIGPIPE, SIG_IGN)
        return Self.writeAll(fd, bytes)
    }

    /// Closes the child's standard input: it reads end-of-file.
    public func closeInput() {
        input?.close()
    }

    // MARK: Standard output and error

    /// The next bytes the child wrote to standard output, waiting for some;
    /// empty at end-of-file (the child and every child of it closed it).
    public func readOutput() -> [UInt8] {
        guard let fd = output?.peek() else { return [] }
        return Self.readChunk(fd)
    }

    /// Reads standard output until a line starting with `prefix` arrives
    /// (returned whole, without its newline) or the output ends (nil: the text
    /// read so far is in `seen`). Reads past the line only what came with it.
    public func readOutputLine(startingWith prefix: String, seen: inout String) -> String? {
        var buffer: [UInt8] = []
        while true {
            let chunk = readOutput()
            guard !chunk.isEmpty else {
                seen = String(decoding: buffer, as: UTF8.self)
                return nil
            }
            buffer += chunk
            // Only complete lines: the last one may still be arriving.
            guard let lastNewline = buffer.lastIndex(of: UInt8(ascii: "\n")) else { continue }
            let complete = String(decoding: buffer[..<lastNewline], as: UTF8.self)
            if let line = complete.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) {
                seen = String(decoding: buffer, as: UTF8.self)
                return String(line)
            }
        }
    }

    /// Everything left on standard output, to its end.
    public func readOutputToEnd() -> [UInt8] {
        guard let fd = output?.peek() else { return [] }
        return Self.readToEnd(fd)
    }

    /// Everything on standard error, to its end.
    public func readErrorsToEnd() -> [UInt8] {
        guard let fd = errors?.peek() else { return [] }
        return Self.readToEnd(fd)
    }

    /// The read end of standard output's pipe, now the caller's to read and close (once).
    public func takeOutput() -> Int32? { output?.take() }

    /// The read end of standard error's pipe, now the caller's to read and close (once).
    public func takeErrors() -> Int32? { errors?.take() }

    /// Reads what the child writes from now on and throws it away, on a thread
    /// of its own, so a long-running child never blocks on a full pipe.
    public func discardOutput() {
        for descriptor in [output, errors].compactMap({ $0 }) {
            guard let fd = descriptor.take() else { continue }
            Thread.detachNewThread {
                Self.forEachChunk(of: fd) { _ in }
                close(fd)
            }
        }
    }

    // MARK: The end

    /// Sends `signal` to the child, unless it has been reaped (its pid may be another process's by then).
    public func send(_ signal: Int32) {
        reaped.whileRunning { kill(pid, signal) }
    }

    /// How the child ended; nil while it runs.
    public var termination: Termination? { reaped.value }

    public var isRunning: Bool { termination == nil }

    /// Waits for the child to end.
    @discardableResult
    public func waitForExit() -> Termination {
        reaped.wait(until: nil)!
    }

    /// Waits at most `seconds` for the child to end; nil when it still runs.
    public func waitForExit(seconds: Double) -> Termination? {
        reaped.wait(until: Date(timeIntervalSinceNow: seconds))
    }

    /// SIGTERM, then after `grace` seconds SIGKILL, which cannot be ignored
    /// (`hush listen` ignores SIGTERM itself, and an ignored signal stays
    /// ignored across exec); waits for the end.
    @discardableResult
    public func stop(grace: Double = 2) -> Termination {
        send(SIGTERM)
        if let ended = waitForExit(seconds: grace) { return ended }
        send(SIGKILL)
        return waitForExit()
    }

    // MARK: Run to the end

    /// Runs `executable ARGUMENTS` to its end with `input` on standard input
    /// (/dev/null when nil) and returns its status (the exit code, or 128 +
    /// the signal) and what it printed; standard error goes with standard
    /// output when `mergingErrors`. Standard error is read, and the input
    /// written, on threads of their own meanwhile: a child that fills one pipe
    /// while we wait on another would never end.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
                           mergingErrors: Bool = false) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try Subprocess(executable, arguments, environment: environment, input: input == nil ? .nullDevice : .pipe,
                                   output: .pipe, errors: mergingErrors ? .sameAsOutput : .pipe)
        let errorText = Collected()
        let finished = DispatchGroup()
        finished.enter()
        Thread.detachNewThread {
            errorText.set(child.readErrorsToEnd())
            finished.leave()
        }
        if let input {
            // Written on a thread of its own too: a child that answers as it reads (`cat`)
            // fills its output pipe and stops reading until this thread reads it.
            finished.enter()
            Thread.detachNewThread {
                child.writeInput(Array(input.utf8))
                child.closeInput()
                finished.leave()
            }
        }
        let out = child.readOutputToEnd()
        finished.wait()
        let ended = child.waitForExit()
        return (ended.status, String(decoding: out, as: UTF8.self), String(decoding: errorText.value, as: UTF8.self))
    }

    // MARK: Descriptors

    /// A pipe whose ends close on exec (a child gets them only where a spawn dup2's them).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard Glibc.pipe(&fds) == 0 else {
            throw SubprocessError(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        // Not atomic with the pipe (Glibc does not export pipe2): a posix_spawn from another
        // thread in between would not leak these anyway, since every child closes 3 and up.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    /// Writes `bytes` to `fd` (a pipe: write(2), not send(2)) until done; false when the reader went away.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Makes the child close every descriptor from `first` up (after the dup2s before it).
    public static func closeFrom(_ first: Int32, in actions: inout posix_spawn_file_actions_t) {
        _ = spawnFileActionsAddClosefrom(&actions, first)
    }

    private static func direct(_ actions: inout posix_spawn_file_actions_t, _ target: Int32, _ output: Output, pipe: Int32?) {
        switch output {
        case .nullDevice: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
        case .pipe: posix_spawn_file_actions_adddup2(&actions, pipe!, target)
        case .standardError: posix_spawn_file_actions_adddup2(&actions, 2, target)
        case .sameAsOutput: posix_spawn_file_actions_adddup2(&actions, 1, target)
        }
    }

    private static func readChunk(_ fd: Int32) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            return count <= 0 ? [] : Array(chunk[..<count])
        }
    }

    private static func readToEnd(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        forEachChunk(of: fd) { all += $0 }
        return all
    }

    /// Reads `fd` to its end (or an error), handing `body` each chunk as it arrives.
    public static func forEachChunk(of fd: Int32, _ body: (ArraySlice<UInt8>) -> Void) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            body(chunk[..<count])
        }
    }

    /// A parent's pipe end: closed once, by whoever holds it last.
    private final class Descriptor: @unchecked Sendable {
        private let lock = NSLock()
        private var fd: Int32?

        init(_ fd: Int32) { self.fd = fd }

        /// The descriptor, still owned here.
        func peek() -> Int32? { lock.withLock { fd } }

        /// The descriptor, now owned by the caller (who closes it).
        func take() -> Int32? {
            lock.withLock {
                defer { fd = nil }
                return fd
            }
        }

        func close() {
            if let fd = take() { _ = Glibc.close(fd) }
        }
    }

    /// The child's termination once the reaping thread has it.
    private final class Reaped: @unchecked Sendable {
        private let condition = NSCondition()
        private var ended: Termination?

        var value: Termination? { condition.withLock { ended } }

        /// Waits for `pid` to end, then reaps it and records how it ended in one
        /// step under the lock `whileRunning` takes: a signal is sent either
        /// before the reap (to the child, or its zombie) or not at all, never to
        /// a process that got the pid afterwards.
        func reap(_ pid: pid_t) {
            var info = siginfo_t()
            // WNOWAIT: the child stays a zombie (its pid its own) until the reap below.
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            condition.withLock {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                ended = Termination(waitStatus: status)
            }
            condition.broadcast()
        }

        /// Runs `body` while the child is not reaped (so its pid is still its own).
        func whileRunning(_ body: () -> Void) {
            condition.withLock { if ended == nil { body() } }
        }

        /// Waits until the child is reaped, or until `deadline` (nil: no deadline;
        /// NSCondition traps on `Date.distantFuture`).
        func wait(until deadline: Date?) -> Termination? {
            condition.lock()
            defer { condition.unlock() }
            while ended == nil {
                if let deadline {
                    if !condition.wait(until: deadline) { break }
                } else {
                    condition.wait()
                }
            }
            return ended
        }
    }

    /// Bytes handed from a reading thread.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        var value: [UInt8] { lock.withLock { bytes } }
        func set(_ new: [UInt8]) { lock.withLock { bytes = new } }
    }
}

/// A program that could not be started.
public struct SubprocessError: Error, CustomStringConvertible {
    public let description: String
}

/// glibc's POSIX_SPAWN_SETSID (spawn.h, 2.26+; not exported without _GNU_SOURCE):
/// the child starts a new session, so the terminal it opens becomes its controlling one.
private let spawnSetSessionID: Int32 = 0x80

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34+), which the Glibc
/// module does not export (it needs _GNU_SOURCE): the child closes every
/// descriptor from `from` up.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func spawnFileActionsAddClosefrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
