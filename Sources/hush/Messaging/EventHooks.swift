import Foundation
import HushClient

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

    /// A hook still running after this long is stopped.
    static let timeoutSeconds = 30.0

    init(notifySend: String?, notifyText: Bool, command: String?) {
        self.notifySend = notifySend
        self.notifyText = notifyText
        self.command = command
    }

    /// The first `notify-send` on PATH, if any.
    static func findNotifySend(path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/notify-send"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    func handle(_ event: MessengerEvent, json: String) {
        let notification = notifySend == nil ? nil : EventNotification(event, includeText: notifyText)
        guard notification != nil || command != nil else { return }
        queue.async { [self] in
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
            try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        if ended.wait(timeout: .now() + EventHooks.timeoutSeconds) == .timedOut {
            process.terminate()
            ended.wait()
            printError("\(label) ran longer than \(Int(EventHooks.timeoutSeconds)) s and was stopped")
        } else if process.terminationStatus != 0 {
            printError("\(label) exited with status \(process.terminationStatus)")
        }
    }
}
