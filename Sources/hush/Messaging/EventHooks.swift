import Foundation
import Synchronization

/// What `hush listen` runs per event besides printing it: a desktop
/// notification through `notify-send` (`--notify`) and the user's command
/// with the event's JSON on its standard input (`--exec`). They run one at
/// a time, in the order of the events, on a queue of their own, so a slow
/// command delays the next hook but never the printing or the connection.
final class EventHooks: Sendable {
    let notifySend: String?
    let notifyText: Bool
    let command: String?
    private let queue = DispatchQueue(label: "hush.listen.hooks")
    /// Events waiting for their hooks, oldest first; at most `maximumWaiting`.
    private let waiting = Mutex<[(notification: EventNotification?, json: String)]>([])
    let timeoutSeconds: Double
    let maximumWaiting: Int

    /// A hook still running after this long is stopped.
    static let timeoutSeconds = 30.0
    /// Events waiting behind a slow hook beyond this many drop the oldest.
    static let maximumWaiting = 100

    init(notifySend: String?, notifyText: Bool, command: String?,
         timeoutSeconds: Double = EventHooks.timeoutSeconds, maximumWaiting: Int = EventHooks.maximumWaiting) {
        self.notifySend = notifySend
        self.notifyText = notifyText
        self.command = command
        self.timeoutSeconds = timeoutSeconds
        self.maximumWaiting = max(1, maximumWaiting)
    }

    /// The first `notify-send` on PATH, if any.
    static func findNotifySend(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/notify-send"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    func handle(_ event: EventDetails, json: String) {
        handle(notification: notifySend == nil ? nil : EventNotification(event, includeText: notifyText), json: json)
    }

    /// For an event as `--json` prints it (what a daemon streams).
    func handle(_ object: [String: Any], json: String) {
        handle(notification: notifySend == nil ? nil : EventNotification(object, includeText: notifyText), json: json)
    }

    private func handle(notification: EventNotification?, json: String) {
        guard notification != nil || command != nil else { return }
        let dropped: Bool = waiting.withLock { waiting in
            waiting.append((notification, json))
            guard waiting.count > maximumWaiting else { return false }
            waiting.removeFirst()
            return true
        }
        if dropped {
            printError("hooks are falling behind (more than \(maximumWaiting) events waiting): the oldest event was skipped")
        }
        queue.async { [self] in
            // One block per event queued; a block whose event was skipped finds the next one, or none.
            let next: (notification: EventNotification?, json: String)? = waiting.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let (notification, json) = next else { return }
            if let notifySend, let notification {
                // Arguments, not a shell line: nothing in a name or message is interpreted.
                let arguments = ["--app-name=hush", "--", notification.summary] + (notification.body.isEmpty ? [] : [notification.body])
                run(notifySend, arguments, input: nil, label: "notify-send")
            }
            if let command {
                run("/bin/sh", ["-c", command], input: json + "\n", label: "--exec command")
            }
        }
    }

    /// Waits for the hooks queued so far (before the process ends).
    func drain() {
        queue.sync {}
    }

    private func run(_ executable: String, _ arguments: [String], input: String?, label: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        // A hook is someone else's code: it gets no passphrase.
        environment["HUSH_PASSPHRASE"] = nil
        process.environment = environment
        process.standardOutput = FileHandle.standardError
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do {
            try process.run()
        } catch {
            printError("\(label) could not start: \(error.localizedDescription)")
            return
        }
        if let input {
            // A command that does not read its input closes the pipe early: that is its business.
            signal(SIGPIPE, SIG_IGN)
            // Written from another thread, so the timeout also covers a command that
            // neither reads a long event nor exits (the write would block forever).
            let writer = stdin.fileHandleForWriting
            // A thread of its own, not a dispatch worker: a write blocked for good must not
            // take a thread the process's termination handler needs.
            Thread {
                try? writer.write(contentsOf: Data(input.utf8))
                try? writer.close()
            }.start()
        }
        if ended.wait(timeout: .now() + timeoutSeconds) == .timedOut {
            process.terminate()
            // SIGTERM may be ignored: `hush listen` ignores it itself (to end in order) and an
            // ignored signal stays ignored across exec. Then SIGKILL, which cannot be.
            if ended.wait(timeout: .now() + 2) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                ended.wait()
            }
            // Its end of the pipe is closed now: a write still blocked fails (EPIPE) and returns,
            // unless a child of the command holds it; either way the next hook does not wait for it.
            printError("\(label) ran longer than \(Int(timeoutSeconds)) s and was stopped")
        } else if process.terminationStatus != 0 {
            printError("\(label) exited with status \(process.terminationStatus)")
        }
    }
}
