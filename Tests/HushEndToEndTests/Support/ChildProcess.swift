import Foundation
import HushSubprocess
import HushTesting
import Glibc

/// A process of the real `hush` binary. Its stdout and stderr are drained
/// by two threads into buffers as they arrive, so a test can wait for a
/// line (the relay's "listening on", a `listen --json` event) while the
/// process runs, and a chatty child never blocks on a full pipe.
///
/// Started through `Subprocess` (posix_spawn, not Foundation's `Process`,
/// whose `run` crashed full test runs): the child gets the pipes as 0, 1 and 2
/// and no other descriptor.
///
/// With `terminal`, the child runs in a pseudo-terminal instead, as in a
/// terminal emulator or tmux: a new session whose controlling terminal is the
/// pty's slave, on 0, 1 and 2. What it writes (stdout and stderr together)
/// is read from the master into `stdout`; `type` writes keystrokes to it.
final class ChildProcess: @unchecked Sendable {
    let arguments: [String]
    private let child: Subprocess
    var pid: pid_t { child.pid }
    /// The pty's master side, when the child runs in a terminal.
    private let terminal: PseudoTerminal?
    private let buffers = Buffers()
    /// Counts output chunks and the exit, so a waiter sleeps until something changed.
    private let changes = Changes()
    private let exited = DispatchSemaphore(value: 0)
    private let drained = DispatchGroup()
    private let state = ExitStatus()

    /// How the child ended, once its end was seen (and the terminal's settings kept).
    private final class ExitStatus: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Subprocess.Termination?
        var status: Subprocess.Termination? { lock.withLock { value } }
        func set(_ status: Subprocess.Termination) { lock.withLock { value = status } }
    }

    /// `fileSizeLimit` (bytes) runs the process with RLIMIT_FSIZE and SIGXFSZ
    /// ignored: a write past that size fails with EFBIG, as on a full disk,
    /// for this process only.
    /// `executable` is `hush` unless another built program (the example bot) is named.
    init(_ arguments: [String], environment: [String: String], stdin: String? = nil, fileSizeLimit: Int? = nil,
         terminal size: (columns: Int, rows: Int)? = nil, executable: String = HushBinary.path) throws {
        self.arguments = arguments
        let terminal = try size.map { try PseudoTerminal(columns: $0.columns, rows: $0.rows) }
        self.terminal = terminal
        var argv: [String]
        if let fileSizeLimit {
            // POSIX sh counts `ulimit -f` in 512-byte blocks.
            argv = ["/bin/sh", "-c", "trap '' XFSZ; ulimit -f \(max(1, fileSizeLimit / 512)) && exec \"$0\" \"$@\"", executable] + arguments
        } else {
            argv = [executable] + arguments
        }
        let child: Subprocess
        do {
            child = try Subprocess(argv[0], Array(argv.dropFirst()), environment: environment, input: stdin == nil ? .nullDevice : .pipe,
                                   output: .pipe, errors: .pipe, terminal: terminal?.slavePath)
        } catch {
            terminal?.master.release()   // the share no draining thread will take
            throw HarnessError("\(error)")
        }
        self.child = child
        if let stdin { child.writeInput(Array(stdin.utf8)) }
        child.closeInput()
        if let terminal {
            let master = terminal.master
            drain(master.fd, toStandardError: false) { master.release() }
        } else {
            for (fd, toStandardError) in [(child.takeOutput(), false), (child.takeErrors(), true)] {
                guard let fd else { continue }
                drain(fd, toStandardError: toStandardError) { close(fd) }
            }
        }
        let (state, exited, changes) = (self.state, self.exited, self.changes)
        Thread.detachNewThread {
            let ended = child.waitForExit()
            // The settings the child left on its terminal; then the master reads EIO and draining ends.
            terminal?.childExited()
            state.set(ended)
            exited.signal()
            changes.bump()
        }
    }

    /// A counter that waiters can sleep on until it moves.
    private final class Changes: @unchecked Sendable {
        private let condition = NSCondition()
        private var value = 0

        var count: Int { condition.withLock { value } }

        func bump() {
            condition.withLock { value += 1 }
            condition.broadcast()
        }

        /// Sleeps until the count moved past `seen`; false when `deadline` came first.
        func wait(past seen: Int, until deadline: Date) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while value == seen {
                if !condition.wait(until: deadline) { return value != seen }
            }
            return true
        }
    }

    /// The captured output, shared with the draining threads (which may outlive this object briefly).
    private final class Buffers: @unchecked Sendable {
        let lock = NSLock()
        var out = Data()
        var err = Data()
    }

    /// Reads `fd` on a thread of its own to the end, then calls `done`: the
    /// only place that lets go of it.
    private func drain(_ fd: Int32, toStandardError: Bool, done: @escaping @Sendable () -> Void) {
        drained.enter()
        let group = drained
        let (buffers, changes) = (self.buffers, self.changes)
        Thread.detachNewThread {
            Subprocess.forEachChunk(of: fd) { chunk in
                buffers.lock.withLock {
                    if toStandardError { buffers.err.append(contentsOf: chunk) } else { buffers.out.append(contentsOf: chunk) }
                }
                changes.bump()
            }
            done()
            group.leave()
        }
    }

    var isRunning: Bool { state.status == nil }

    /// Keystrokes (or a paste) into the child's terminal.
    func type(_ text: String) {
        terminal?.write(Array(text.utf8))
    }

    /// Resizes the child's terminal (the kernel sends it SIGWINCH).
    func resize(columns: Int, rows: Int) {
        terminal?.resize(columns: columns, rows: rows)
    }

    /// The terminal settings when the child ended (nil before, or without a terminal).
    var terminalSettingsAtExit: termios? { terminal?.settingsAtExit }
    var stdout: String { buffers.lock.withLock { String(decoding: buffers.out, as: UTF8.self) } }
    var stderr: String { buffers.lock.withLock { String(decoding: buffers.err, as: UTF8.self) } }

    /// Complete stdout lines printed so far.
    var lines: [String] {
        let text = stdout
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()   // the unfinished tail (empty when the text ends with a newline)
        return lines
    }

    /// Waits until `condition` holds or `timeout` seconds pass, looking again
    /// each time the child prints something or ends (no polling interval).
    @discardableResult
    func wait(timeout: Double, until condition: (ChildProcess) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let seen = changes.count
            if condition(self) { return true }
            guard changes.wait(past: seen, until: deadline) else { return condition(self) }
        }
    }

    /// Waits for the process to end by itself; false when it is still running after `timeout`.
    func waitForExit(timeout: Double) -> Bool {
        exited.wait(timeout: .now() + timeout) == .success
    }

    func signal(_ number: Int32) {
        child.send(number)
    }

    /// Waits for the end (killing it after `timeout` seconds) and returns what it printed.
    func finish(timeout: Double) -> CommandResult {
        if !waitForExit(timeout: timeout) {
            signal(SIGKILL)
            _ = waitForExit(timeout: 10)
            buffers.lock.withLock { buffers.err.append(Data("\n[harness: killed after \(timeout) s]".utf8)) }
        }
        _ = drained.wait(timeout: .now() + 5)
        let ended = state.status ?? .exited(0)
        let signalled = if case .signalled = ended { true } else { false }
        return CommandResult(arguments: arguments, status: ended.status, signalled: signalled, stdout: stdout, stderr: stderr)
    }

    deinit {
        if isRunning {
            child.send(SIGKILL)
            _ = exited.wait(timeout: .now() + 5)
        }
    }
}
