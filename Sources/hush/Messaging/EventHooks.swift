import Foundation
import HushSubprocess
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
        var environment = ProcessInfo.processInfo.environment
        // A hook is someone else's code: it gets no passphrase.
        environment["HUSH_PASSPHRASE"] = nil
        // Its output goes where ours does for the user: standard error (standard output is the events').
        let child: Subprocess
        do {
            child = try Subprocess(executable, arguments, environment: environment, input: input == nil ? .nullDevice : .pipe,
                                   output: .standardError, errors: .standardError)
        } catch {
            printError("\(label) could not start: \(error)")
            return
        }
        if let input {
            // Written from another thread, so the timeout also covers a command that neither
            // reads a long event nor exits (the write would block forever). A thread of its
            // own, not a dispatch worker: a write blocked for good must not take a worker.
            // A command that does not read its input closes the pipe early: that is its business.
            Thread.detachNewThread {
                child.writeInput(Array(input.utf8))
                child.closeInput()
            }
        }
        if let ended = child.waitForExit(seconds: timeoutSeconds) {
            if ended != .exited(0) { printError("\(label) ended with \(ended)") }
            return
        }
        // The command starts with every signal at its default (not `hush listen`'s ignored
        // SIGTERM), but may ignore SIGTERM itself: `stop` then sends SIGKILL, which cannot be.
        child.stop()
        // Its end of the pipe is closed now: a write still blocked fails (EPIPE) and returns,
        // unless a child of the command holds it; either way the next hook does not wait for it.
        printError("\(label) ran longer than \(Int(timeoutSeconds)) s and was stopped")
    }
}
