import ArgumentParser
import Foundation
import HushDaemon
import HushKit
import HushTerminal
import Synchronization

struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Stay connected and print incoming events as they arrive (for scripts and notifications).",
        discussion: """
            Events: message (a new incoming message), request (a message from a stranger: a message \
            request, nothing is sent back until `hush requests accept`), status (an outgoing message became sent, \
            delivered, read or failed), reaction (someone's reaction to a message was set, changed or taken \
            away; --json carries the message with its "reactions"), edited (its author edited a message; \
            --json carries the message with its new "body" and "editedAt"), deleted (a message was \
            deleted or expired), disappearingTimer (a conversation's timer changed; "disappearingSeconds" \
            is null when off), typing, quarantined, connection. With --json each event is one \
            JSON object on its own line. Stops on Ctrl-C, or after --timeout seconds.

            --notify shows a desktop notification (through notify-send, from libnotify) for each new \
            message and message request. It names the contact only; --notify-text adds the message \
            text, which then also sits in the notification history and may show on a locked screen. \
            With --notify the printed lines name the contact but leave out the message text (a \
            service's output usually ends up in a log such as the systemd journal); --print-text \
            prints it too. --json always carries it. \
            --exec runs COMMAND with /bin/sh for every event, with the event's JSON (as --json prints \
            it) on its standard input; hooks run one at a time, and one still running after 30 s is \
            stopped. Neither gets HUSH_PASSPHRASE. README.md shows a systemd user unit for running \
            `hush listen --notify` in the background.

            Examples:
              hush listen
              hush listen --json | jq -r 'select(.event == "message") | .body'
              hush listen --notify
              hush listen --exec 'jq -r .event >> ~/hush-events.log'
            """)

    @OptionGroup var global: GlobalOptions
    // `.unconditional`: a negative number is the value, refused by `validate` with the range (it read as a missing value).
    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: run until interrupted).") var timeout: Double?
    @Flag(help: "Show a desktop notification for each new message or request (the contact's name only).") var notify = false
    @Flag(help: "With --notify, put the message text in the notification too.") var notifyText = false
    @Flag(help: "With --notify, print the message text on standard output too (left out by default).") var printText = false
    @Option(help: ArgumentHelp("Run COMMAND (with /bin/sh) for each event, with the event as JSON on its standard input.",
                               valueName: "COMMAND"))
    var exec: String?

    func validate() throws {
        if notifyText && !notify { throw ValidationError("--notify-text goes with --notify") }
        if printText && !notify { throw ValidationError("--print-text goes with --notify (without --notify the text is printed anyway)") }
        if let exec, exec.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--exec needs a command") }
        // Converted to nanoseconds below: a number past about 584 years of them stopped the process.
        if let timeout, !(timeout > 0 && timeout <= Self.longestTimeout) {
            throw ValidationError("--timeout is a number of seconds above 0 and at most \(Int(Self.longestTimeout)) (a year); leave it out to listen until interrupted")
        }
    }

    /// The longest --timeout: a year of seconds.
    static let longestTimeout: Double = 365 * 86_400

    func run() async throws {
        try await reportingErrors {
            var notifySend: String?
            if notify {
                notifySend = EventHooks.findNotifySend()
                if notifySend == nil {
                    printNotice("notify-send was not found on PATH (Debian and Ubuntu: apt install libnotify-bin); listening without desktop notifications")
                }
            }
            let hooks = EventHooks(notifySend: notifySend, notifyText: notifyText, command: exec)
            if let daemon = try DaemonForwarding.answeringConnection(home: try global.homeDirectory()) {
                return try await listen(through: daemon, hooks: hooks)
            }
            let account = try await global.openAccount()
            let json = global.json
            // With --notify this usually runs as a service whose output is logged: no message text there unless asked.
            let bodies = !notify || printText
            // Subscribed before the live connection starts: nothing it stores is missed.
            let events = account.events()
            // Another home of the key registered (a restore elsewhere): the live connection
            // stopped for good, so listening stops too, with the error and its exit code.
            let (replacements, replaced) = AsyncStream<HushError>.makeStream(bufferingPolicy: .bufferingNewest(1))
            // Set when listening ends: the connection then closes because we asked, which is
            // no "disconnected from the relay; reconnecting" (a walkthrough found that line last).
            let stopping = Atomic(false)
            account.startLive()
            let printer = Task {
                var typing = TypingLines()
                for await event in events {
                    guard let details = await EventDetails.read(event, from: account) else { continue }
                    if case .connection(online: false) = details, stopping.load(ordering: .acquiring) { continue }
                    let object = ListenCommand.describe(details)
                    let line = Presentation.jsonLine(object)
                    if json || (typing.shows(object) && !Self.isSaidAsTheError(object)) {
                        print(json ? line : ListenCommand.text(object, bodies: bodies))
                    }
                    fflush(nil)
                    hooks.handle(details, json: line)
                    if case let .syncFailed(error) = details, error.kind == .homeReplaced { replaced.yield(error) }
                }
            }
            let waiter = Task { [timeout] in
                await Self.waitForTimeoutOrInterrupt(timeout)
                replaced.finish()
            }
            var stoppedBy: HushError?
            for await error in replacements {
                stoppedBy = error
                break
            }
            waiter.cancel()
            stopping.store(true, ordering: .releasing)
            await LiveStop.stop(account)
            printer.cancel()
            hooks.drain()
            if let stoppedBy { throw stoppedBy }
        }
    }

    /// Beside a daemon: its events, printed and hooked as they would be here.
    private func listen(through daemon: DaemonConnection, hooks: EventHooks) async throws {
        _ = try daemon.call("events.subscribe")
        let json = global.json, bodies = !notify || printText
        let connection = DaemonStream(daemon)
        let printer = Task.detached { () -> (closedByUs: Bool, replaced: String?) in
            var typing = TypingLines()
            // Blocking reads, on a thread of their own; they end when the connection closes.
            while let message = try? connection.receive() {
                guard message["method"]?.stringValue == "event", let params = message["params"],
                      let object = try? JSONSerialization.jsonObject(with: Data(params.description.utf8)) as? [String: Any] else { continue }
                let line = Presentation.jsonLine(object)
                if json || (typing.shows(object) && !ListenCommand.isSaidAsTheError(object)) {
                    print(json ? line : ListenCommand.text(object, bodies: bodies))
                }
                fflush(nil)
                hooks.handle(object, json: line)
                // The daemon's home was replaced by another (§19.4): its live connection is over.
                if object["homeReplaced"] as? Bool == true { return (false, object["message"] as? String ?? "") }
            }
            return (connection.isClosed, nil)
        }
        // Ctrl-C, SIGTERM or the timeout close the connection, which ends the printer's read.
        let stopper = Task { [timeout] in
            await Self.waitForTimeoutOrInterrupt(timeout)
            connection.close()
        }
        let (closedByUs, replaced) = await printer.value
        stopper.cancel()
        connection.close()
        if let replaced {
            hooks.drain()
            printError(replaced)
            throw ExitCode(ExitStatus.homeReplaced.rawValue)
        }
        if !closedByUs {
            printError("the daemon closed the connection (it stopped?): `hush daemon status` says whether it runs")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
        hooks.drain()
    }

    /// Returns after `timeout` seconds, or at Ctrl-C or SIGTERM when there is none.
    private static func waitForTimeoutOrInterrupt(_ timeout: Double?) async {
        if let timeout {
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
        } else {
            await waitForInterrupt()
        }
    }

    /// The event a replaced home's listening ends with: in text, said once, as
    /// the error on stderr (a terminal showed it twice, on stdout as well).
    static func isSaidAsTheError(_ object: [String: Any]) -> Bool {
        object["event"] as? String == "syncFailed" && object["homeReplaced"] as? Bool == true
    }

    static func describe(_ event: EventDetails) -> [String: Any] {
        switch event {
        case let .message(message, contact, group):
            var object = Presentation.json(message, contact: contact)
            object["event"] = "message"
            if let group { object["group"] = group }
            return object
        case let .request(message, contact):
            var object = Presentation.json(message, contact: contact)
            object["event"] = "request"
            return object
        case let .status(message, status, contact):
            return ["event": "status", "clientMessageId": message.clientMessageID, "status": status.rawValue, "contact": contact]
        case let .typing(_, contact, active):
            return ["event": "typing", "contact": contact, "active": active]
        case let .undecryptable(reason, senderAsked):
            return ["event": "quarantined", "reason": reason, "senderAsked": senderAsked]
        case let .resent(message, contact):
            return ["event": "resent", "clientMessageId": message.clientMessageID, "contact": contact]
        case let .connection(online):
            return ["event": "connection", "online": online]
        case let .groupChanged(_, group):
            return ["event": "group", "group": group]
        case let .reaction(message, contact, summary):
            var object = Presentation.json(message, contact: contact)
            object["event"] = "reaction"
            object["summary"] = summary
            return object
        case let .edited(message, contact):
            var object = Presentation.json(message, contact: contact)
            object["event"] = "edited"
            return object
        case let .deleted(message, contact):
            return ["event": "deleted", "id": message.id.rawValue, "clientMessageId": message.clientMessageID, "contact": contact,
                    "deleted": true]
        case let .timer(_, contact, seconds):
            return ["event": "disappearingTimer", "contact": contact, "disappearingSeconds": seconds.map { $0 as Any } ?? NSNull()]
        case let .file(attachment, contact):
            var object: [String: Any] = ["event": "file", "attachment": attachment.id.rawValue, "id": attachment.message.rawValue,
                                         "contact": contact, "state": attachment.state.rawValue, "fileName": attachment.fileName,
                                         "size": attachment.size, "direction": attachment.direction == .outgoing ? "out" : "in"]
            if let error = attachment.lastError, attachment.state == .failed { object["error"] = error }
            return object
        case let .missed(count):
            return ["event": "missed", "count": count]
        case let .syncFailed(error):
            // `homeReplaced`: not tried again; listening stops (a listener beside a daemon reads it here).
            var object: [String: Any] = ["event": "syncFailed", "message": error.terminalReport.message]
            if error.kind == .homeReplaced { object["homeReplaced"] = true }
            return object
        }
    }

    /// A field someone else chose (a body, a name, a reason) on one line, defused.
    private static func untrusted(_ value: Any?) -> String {
        UntrustedText.sanitized(value.map { $0 as? String ?? String(describing: $0) } ?? "?", keepingLineBreaks: false)
    }

    /// One event as a line of text; `bodies: false` leaves message text out (names only).
    static func text(_ object: [String: Any], bodies: Bool = true) -> String {
        switch object["event"] as? String {
        case "message" where (object["direction"] as? String) == "out" && (object["status"] as? String) == "pending":
            // Ours, written on this home by another command (`hush send` beside us): told as it is queued.
            let to = object["group"].map { "in \(untrusted($0))" } ?? "to \(untrusted(object["contact"]))"
            return bodies ? "you \(to): \(untrusted(object["body"]))" : "message you sent \(to)"
        case "message" where (object["direction"] as? String) == "out":
            // Ours, sent from another device of the account (a sent transcript, PROTOCOL §20.11).
            let to = object["group"].map { "in \(untrusted($0))" } ?? "to \(untrusted(object["contact"]))"
            return bodies ? "you \(to), from another device: \(untrusted(object["body"]))" : "message you sent \(to) from another device"
        case "message":
            let from = object["group"].map { "\(untrusted(object["contact"])) in \(untrusted($0))" } ?? untrusted(object["contact"])
            return bodies ? "\(from): \(untrusted(object["body"]))" : "message from \(from)"
        case "reaction":
            let summary = (object["summary"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? "none"
            return "reactions to message \(object["id"] ?? "?") with \(untrusted(object["contact"])): \(untrusted(summary))"
        case "edited":
            let text = bodies ? ": \(untrusted(object["body"]))" : ""
            return "message \(object["id"] ?? "?") with \(untrusted(object["contact"])) was edited\(text)"
        case "deleted":
            return "message \(object["id"] ?? "?") with \(untrusted(object["contact"])) was deleted"
        case "file":
            // A file another device of ours sent (its copy, downloaded here) is ours, not the contact's.
            let ours = (object["direction"] as? String) == "out"
            let file = "file \(object["attachment"] ?? "?") “\(untrusted(object["fileName"]))” "
                + (ours ? "you sent to \(untrusted(object["contact"])) from another device" : "from \(untrusted(object["contact"]))")
            if (object["state"] as? String) == "ready" { return "\(file) is downloaded and checked: `hush fetch \(object["attachment"] ?? "?") --out PATH` saves it" }
            return "\(file) could not be downloaded: \(untrusted(object["error"]))" + (ours ? "" : " (ask them to send it again)")
        case "disappearingTimer":
            let seconds = (object["disappearingSeconds"] as? Int64).map { DisappearingTimer.duration(UInt32(clamping: $0)) }
            return "disappearing messages with \(untrusted(object["contact"])): \(seconds ?? "off")"
        case "group":
            return "group \(untrusted(object["group"])) changed: `hush group info \(untrusted(object["group"]))`"
        case "request":
            let contact = untrusted(object["contact"])
            return "message request from \(contact)\(bodies ? ": " + untrusted(object["body"]) : "") (`hush requests accept \(contact)` to answer, `hush requests block \(contact)` to block)"
        case "status": return "message \(String(describing: object["clientMessageId"] ?? "").prefix(8)) to \(untrusted(object["contact"])): \(untrusted(object["status"]))"
        case "typing": return "\(untrusted(object["contact"])) \((object["active"] as? Bool) == true ? "is typing…" : "stopped typing")"
        case "missed": return "\(object["count"] ?? "?") events were missed (this listener fell behind); all of them are stored: `hush chats` and `hush history` show them"
        case "syncFailed" where object["homeReplaced"] as? Bool == true: return untrusted(object["message"])
        case "syncFailed": return "could not take in what arrived: \(untrusted(object["message"])) (it stays at the relay and is tried again at the next message or reconnect)"
        case "quarantined" where (object["senderAsked"] as? Bool) == true:
            return "a message could not be opened yet (\(untrusted(object["reason"]))); its sender was asked to send it again, so it should follow"
        case "quarantined": return "set aside an envelope: \(untrusted(object["reason"]))"
        case "resent": return "message \(String(describing: object["clientMessageId"] ?? "").prefix(8)) to \(untrusted(object["contact"])): could not be decrypted there, sent again"
        default: return (object["online"] as? Bool) == true ? "connected to the relay" : "disconnected from the relay; reconnecting"
        }
    }
}

/// Which typing events `hush listen` prints as lines: a contact's "stopped
/// typing" only after its "is typing…". An open chat's presence heartbeat
/// is a "typing stopped" every 20 s (PROTOCOL Appendix B), which printed a
/// line that said nothing. `--json` prints every event.
struct TypingLines {
    private var typing: Set<String> = []

    mutating func shows(_ object: [String: Any]) -> Bool {
        guard object["event"] as? String == "typing", let contact = object["contact"] as? String else { return true }
        if (object["active"] as? Bool) == true { return typing.insert(contact).inserted }
        return typing.remove(contact) != nil
    }
}

/// Suspends until SIGINT or SIGTERM.
func waitForInterrupt() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let once = InterruptOnce(continuation)
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { once.fire() }
            source.resume()
            InterruptOnce.sources.append(source)
        }
    }
}

private final class InterruptOnce: @unchecked Sendable {
    nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func fire() {
        lock.lock()
        let pending = continuation
        continuation = nil
        lock.unlock()
        pending?.resume()
    }
}

/// A daemon connection read on one thread and closed from another.
private final class DaemonStream: @unchecked Sendable {
    private let connection: DaemonConnection
    private let lock = NSLock()
    private var closed = false

    init(_ connection: DaemonConnection) { self.connection = connection }

    func receive() throws -> JSONValue? { try connection.receive() }

    var isClosed: Bool { lock.withLock { closed } }

    /// Ends the stream (a blocked read returns); whether this call did it.
    @discardableResult
    func close() -> Bool {
        lock.withLock {
            guard !closed else { return false }
            closed = true
            connection.shutdown()
            return true
        }
    }
}
