import ArgumentParser
import Foundation
import HushKit
import HushTerminal

struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send a message; prints its status once the relay has it.",
        discussion: """
            The text is sealed for the contact before it is written to the outbox; the outbox then posts \
            it to the relay. If the relay cannot be reached the message stays pending and is retried \
            with backoff by `hush sync`, `hush chat` or `hush retry`.

            Exits 0 when the relay accepted the message, 25 when it is queued in the outbox because the \
            relay could not be reached, and 22 when the relay refused it (rate limit, or a refusal \
            that will not be retried).

            Examples:
              hush send bob "see you at 8"
              echo "from a script" | hush send bob
              hush send bob --file photo.jpg "from the summit"
              hush send team "to every member of the group"

            With --file the file is encrypted on this machine (a fresh key, in chunks, padded so the \
            relay learns only a size bucket) and uploaded; the message carrying its key is pending until \
            the upload completes, and the outbox retries the upload like a message. TEXT, if given, follows \
            as a message of its own.
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's or group's name (contact:NAME or group:NAME when both exist).") var name: String
    @Argument(help: "The text; read from standard input when omitted or '-' (with --file: an optional caption).") var text: String?
    @Option(help: "Send this file as an attachment.") var file: String?

    func run() async throws {
        if let file { return try await sendFile(CommandContext.resolve(file)) }
        try await reportingErrors {
            let body = CommandInput.text(text)
            guard !body.isEmpty else { throw ValidationError("nothing to send: the message is empty") }
            let account = try await global.openAccount()
            let sent = try await Names(account: account).room(name).room.sendReportingDelivery(body)
            if global.json {
                try printJSON(Presentation.json(sent.message, contact: name))
            } else {
                print("[\(sent.message.id)] to \(name): \(Presentation.mark(sent.message.status))")
            }
            try SendCommand.exitForQueued(sent)
        }
    }

    /// Says why a message just sent is not at the relay and exits with the
    /// code a script branches on; returns when the relay has it.
    static func exitForQueued(_ sent: SendReport) throws {
        guard let reason = sent.reason else { return }
        if sent.message.status == .failed {
            printError("the relay did not take the message and it will not be retried (\(reason)); `hush retry` tries again")
            throw ExitCode(.relayUnavailable)
        }
        printError("not delivered to the relay yet (\(reason)); it stays in the outbox and `hush sync` retries it")
        // Queued either way; the code tells a script whether the relay said no or was not reached.
        throw ExitCode((sent.refusedByRelay ? ExitStatus.relayUnavailable : ExitStatus.queued).rawValue)
    }
}

extension SendCommand {
    func sendFile(_ path: String) async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let room = try await Names(account: account).room(name).room
            let progress = ProgressDisplay(json: global.json, label: String(path.split(separator: "/").last ?? ""))
            let (message, attachment) = try await room.sendFile(at: path, progress: progress.handler)
            if let text, !text.isEmpty { _ = try await room.send(text) }
            let reason = try await SendCommand.queueReason(message, attachment: attachment, account: account)
            if global.json {
                var object = Presentation.json(message, contact: name)
                object["attachment"] = AttachmentsCommand.json(attachment, contact: name)
                try printJSON(object)
            } else {
                // The text names the file, whose name may hold terminal controls: defused as history shows it.
                print("[\(message.id)] to \(name): \(UntrustedText.sanitized(message.text, keepingLineBreaks: false)) "
                      + "\(Presentation.mark(message.status)) (attachment \(attachment.id): \(attachment.state.rawValue))")
            }
            guard let reason else { return }
            if message.status == .failed {
                printError("the file was not sent and will not be retried (\(reason)); `hush retry` tries again")
                throw ExitCode(.relayUnavailable)
            }
            printError("the file is not at the relay yet (\(reason)); it stays in the outbox and `hush sync` retries it")
            throw ExitCode(ExitStatus.queued.rawValue)
        }
    }
}

extension SendCommand {
    /// Why a file's message is not at the relay yet (nil once it is): the
    /// upload's error, else the queue's, else no answer at all.
    static func queueReason(_ message: Message, attachment: Attachment, account: HushAccount) async throws -> String? {
        guard message.status == .pending || message.status == .failed else { return nil }
        if let error = attachment.lastError { return error }
        return try await account.queuedMessages().first(where: { $0.message == message.id })?.lastError ?? "no answer"
    }
}

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Flush the outbox, then fetch, decrypt, store and acknowledge everything waiting.",
        discussion: """
            Examples:
              hush sync
              hush sync --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            let report = try await account.sync()
            let requests = report.pendingRequests
            let quarantined = report.setAside - report.askedToResend
            if global.json {
                try printJSON(["received": report.received, "messages": report.newMessages, "quarantined": quarantined, "resendRequested": report.askedToResend,
                               "deferred": report.deferred, "waitingForGroupKeys": report.waitingForGroupKeys, "waitingForAcceptance": report.waitingForAcceptance, "dropped": report.dropped, "requests": requests,
                               "sent": report.sent, "retrying": report.retrying, "failed": report.failed])
            } else {
                // Messages apart from the envelopes: receipts, keys and group changes are envelopes too,
                // and "Received 4" for two messages read as two lost.
                let messages = report.newMessages == 0 ? "No new messages" : "\(report.newMessages) new message\(report.newMessages == 1 ? "" : "s")"
                print("\(messages) (\(report.received) envelope\(report.received == 1 ? "" : "s") received, \(report.sent) sent" +
                      (report.retrying > 0 ? ", \(report.retrying) waiting to retry" : "") +
                      (report.failed > 0 ? ", \(report.failed) failed, see `hush outbox`" : "") +
                      (report.dropped > 0 ? ", dropped \(report.dropped) unread: from blocked contacts, or to groups you are no longer in" : "") + ")")
                if requests > 0 {
                    print("\(requests) message request(s) from people who are not your contacts: `hush requests`")
                }
            }
            // A device the account revoked learns it from a sync (the list comes with it): said, not only
            // found out at the next send (a walkthrough's sync said "No new messages" and nothing more).
            if let revokedAt = (try? await account.revokedAt()) ?? nil {
                printNotice("this device was revoked from its account at \(revokedAt.formatted(.iso8601)): it reads what it holds and "
                            + "writes nothing; write from another device of the account (`hush device list`)")
            }
            if report.askedToResend > 0 {
                printNotice("\(report.askedToResend) envelope(s) could not be decrypted; their senders were asked to send them again (they arrive with a later sync)")
            }
            if report.waitingForGroupKeys > 0 {
                printNotice("\(report.waitingForGroupKeys) group message(s) came before their sender's key, which is on its way; " +
                           "they stay at the relay and a later sync opens them")
            }
            if report.waitingForAcceptance > 0 {
                // Envelopes, not messages: the members' keys for the group wait with its messages (a walkthrough saw
                // "3 group message(s)" for one).
                printNotice("\(report.waitingForAcceptance) envelope(s) (messages and members' keys) belong to a group you were invited to by " +
                           "someone whose message request you have not accepted: they stay at the relay until you accept it (`hush requests`)")
            }
            if report.deferred > 0 {
                printError("\(report.deferred) envelope(s) could not be opened because this device lacks the state for them " +
                           "(a session or a prekey: was a contact removed, or an old backup restored?); they stay at the relay " +
                           "and every sync tries them again; `hush audit local` lists them")
            }
            if quarantined > 0 {
                printError("\(quarantined) envelope(s) could not be decrypted and were set aside; `hush audit local` lists them")
            }
            if quarantined > 0 || report.deferred > 0 { throw ExitCode(.quarantined) }
        }
    }
}
