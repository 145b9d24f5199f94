import Foundation
import Glibc

/// A process of the real `hush` binary. Its stdout and stderr are drained
/// by two threads into buffers as they arrive, so a test can wait for a
/// line (the relay's "listening on", a `listen --json` event) while the
/// process runs, and a chatty child never blocks on a full pipe.
final class ChildProcess: @unchecked Sendable {
    let arguments: [String]
    private let process = Process()
    private let buffers = Buffers()
    private let exited = DispatchSemaphore(value: 0)
    private let drained = DispatchGroup()

    /// `fileSizeLimit` (bytes) runs the process with RLIMIT_FSIZE and SIGXFSZ
    /// ignored: a write past that size fails with EFBIG, as on a full disk,
    /// for this process only.
    init(_ arguments: [String], environment: [String: String], stdin: String? = nil, fileSizeLimit: Int? = nil) throws {
        self.arguments = arguments
        if let fileSizeLimit {
            // POSIX sh counts `ulimit -f` in 512-byte blocks.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' XFSZ; ulimit -f \(max(1, fileSizeLimit / 512)) && exec \"$0\" \"$@\"", HushBinary.path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: HushBinary.path)
            process.arguments = arguments
        }
        process.environment = environment
        let outPipe = Pipe(), errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        let inPipe = stdin.map { _ in Pipe() }
        process.standardInput = inPipe ?? FileHandle.nullDevice
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if let inPipe, let stdin {
            inPipe.fileHandleForWriting.write(Data(stdin.utf8))
            try inPipe.fileHandleForWriting.close()
        }
        drain(outPipe.fileHandleForReading, toStandardError: false)
        drain(errPipe.fileHandleForReading, toStandardError: true)
    }

    /// The captured output, shared with the draining threads (which may outlive this object briefly).
    private final class Buffers: @unchecked Sendable {
        let lock = NSLock()
        var out = Data()
        var err = Data()
    }

    private func drain(_ handle: FileHandle, toStandardError: Bool) {
        drained.enter()
        let group = drained
        let buffers = self.buffers
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffers.lock.withLock {
                    if toStandardError { buffers.err.append(chunk) } else { buffers.out.append(chunk) }
                }
            }
            group.leave()
        }
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var stdout: String { buffers.lock.withLock { String(decoding: buffers.out, as: UTF8.self) } }
    var stderr: String { buffers.lock.withLock { String(decoding: buffers.err, as: UTF8.self) } }

    /// Complete stdout lines printed so far.
    var lines: [String] {
        let text = stdout
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()   // the unfinished tail (empty when the text ends with a newline)
        return lines
    }

    /// Waits (polling) until `condition` holds or `timeout` seconds pass.
    @discardableResult
    func wait(timeout: Double, until condition: (ChildProcess) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(self) { return true }
            usleep(20_000)
        }
        return condition(self)
    }

    /// Waits for the process to end by itself; false when it is still running after `timeout`.
    func waitForExit(timeout: Double) -> Bool {
        exited.wait(timeout: .now() + timeout) == .success
    }

    func signal(_ number: Int32) {
        if process.isRunning { kill(process.processIdentifier, number) }
    }

    /// Waits for the end (killing it after `timeout` seconds) and returns what it printed.
    func finish(timeout: Double) -> CommandResult {
        if !waitForExit(timeout: timeout) {
            signal(SIGKILL)
            _ = waitForExit(timeout: 10)
            buffers.lock.withLock { buffers.err.append(Data("\n[harness: killed after \(timeout) s]".utf8)) }
        }
        _ = drained.wait(timeout: .now() + 5)
        let signalled = process.terminationReason == .uncaughtSignal
        return CommandResult(arguments: arguments, status: signalled ? 128 + process.terminationStatus : process.terminationStatus,
                             signalled: signalled, stdout: stdout, stderr: stderr)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            _ = exited.wait(timeout: .now() + 5)
        }
    }
}
