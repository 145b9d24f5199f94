import Dispatch
import Foundation

/// Ctrl-C (or SIGTERM) while `hush device link` or `hush init --link` runs.
/// The default would end the process where it stands: the other device left
/// waiting up to 15 minutes, and an entry this device had already published
/// left active in the account's list (a walkthrough found both). Instead the
/// first signal stops the link as a failure would (HushKit tells the other
/// device and withdraws what it published) and a question being asked is
/// answered "no"; a second signal ends the process at once.
final class LinkInterruption: @unchecked Sendable {
    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []
    private var stop: (@Sendable () -> Void)?
    private var pendingAnswer: CheckedContinuation<String?, Never>?
    private var interrupted = false

    /// Whether a signal stopped the link (its notice started a line of its own).
    var wasInterrupted: Bool { lock.withLock { interrupted } }

    /// Runs `link` until it ends, stopping it at the first SIGINT or SIGTERM.
    func run<T: Sendable>(_ link: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await link() }
        lock.withLock { stop = { task.cancel() } }
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
            lock.withLock { sources.append(source) }
        }
        defer {
            lock.withLock { sources.forEach { $0.cancel() } }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        return try await task.value
    }

    /// A line from standard input, or nil at its end or when the link is
    /// interrupted meanwhile (the reading thread is left to the process's end).
    /// Cancelling the calling task answers nil too (the other device stopped the link meanwhile).
    func readAnswer() async -> String? {
        await withTaskCancellationHandler {
            await waitForAnswer()
        } onCancel: {
            lock.withLock { () -> CheckedContinuation<String?, Never>? in
                defer { pendingAnswer = nil }
                return pendingAnswer
            }?.resume(returning: nil)
        }
    }

    private func waitForAnswer() async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let interruptedAlready = lock.withLock {
                if interrupted || Task.isCancelled { return true }
                pendingAnswer = continuation
                return false
            }
            guard !interruptedAlready else { return continuation.resume(returning: nil) }
            Thread.detachNewThread { [self] in
                let line = Self.readRawLine()
                lock.withLock { () -> CheckedContinuation<String?, Never>? in
                    defer { pendingAnswer = nil }
                    return pendingAnswer
                }?.resume(returning: line)
            }
        }
    }

    /// One line from file descriptor 0, read with read(2): `readLine` holds
    /// the stdin FILE's lock while it waits, and `exit` flushes every FILE
    /// under its lock, so a process that ended with the question unanswered
    /// hung until Enter was pressed (a walkthrough). Nil at the end of input.
    private static func readRawLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(0, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
                bytes.append(byte)
                continue
            }
            if count < 0, errno == EINTR { continue }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }

    private func received(_ number: Int32) {
        let (first, stopping, answer) = lock.withLock { () -> (Bool, (@Sendable () -> Void)?, CheckedContinuation<String?, Never>?) in
            defer { interrupted = true; pendingAnswer = nil }
            return (!interrupted, stop, pendingAnswer)
        }
        guard first else {
            // The second: the user insists. At once: raising the signal again only queued it for the
            // signal source that took this one (a walkthrough's second Ctrl-C let the link finish).
            _exit(128 + number)
        }
        FileHandle.standardError.write(Data("\nhush: stopping the link and telling the other device (press Ctrl-C again to quit at once)\n".utf8))
        // The stop first: the question's "no" must find the link stopping, not read as the user's decline.
        stopping?()
        answer?.resume(returning: nil)
    }
}
