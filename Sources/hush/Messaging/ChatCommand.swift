import ArgumentParser
import Foundation
import HushDaemon
import HushKit
import HushTerminal
import Synchronization

struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "An interactive, real-time conversation in the terminal.",
        discussion: """
            Takes the terminal's screen: a header (the contact, whether you verified them, online or \
            typing), the latest messages, and your input line at the bottom. Incoming messages appear \
            as they arrive; your messages carry a mark that changes on their own line (… pending, ✓ sent, \
            ✓✓ delivered, ✓✓ read). "Online" means the contact has `hush chat` open with you: it sends \
            an encrypted, never-stored heartbeat every 20 seconds. Type a line and press Enter to send; \
            pasted line breaks stay in the message.

            Commands (never sent): /help, /quit, /verify [DIGITS] (show the safety number, or compare \
            the one read out), /history [N] (the last N messages again), /search TEXT (in this \
            conversation), /file PATH (send a file), /reply ID TEXT (reply quoting message ID), \
            /react ID EMOJI and /unreact ID (set or take back your reaction), /edit ID TEXT (replace \
            the text of your message ID; both sides show it "(edited)"), /fetch [ID] (download the file \
            of message ID to \(ChatInput.downloadsDescription), with progress), /delete ID (here) and \
            /delete! ID (your message, for everyone), /disappear 1h|1d|1w|off (the conversation's \
            disappearing timer). ID is the number in brackets before each message (the one `hush history` \
            shows), or last: the latest message that suits (received for /reply, /react and /fetch, yours \
            for /edit; /fetch alone is the latest file received; /delete always takes a number). Start a \
            line with // to send one beginning with /. Page Up and Page Down \
            scroll; Ctrl-D on an empty line or Ctrl-C leaves, restoring the terminal.

            When standard input is not a terminal, each input line is sent as a message (commands \
            work too), status changes are printed as lines, and the chat ends with the input. It then \
            exits as `hush send` does: 0 when the relay took every message, 25 when one is queued in \
            the outbox because the relay could not be reached, 22 when the relay refused one, the \
            code `hush send` gives when a line that sends could not be sent at all (the lines after \
            it still go); and 1 at a line longer than a message may be (32,768 bytes), which is not sent.

            While `hush daemon` owns the account, the chat is one of its clients (no passphrase asked), \
            beside `hush listen` and other commands; its heartbeats go over the daemon's connection.

            Examples:
              hush chat bob
              echo "on my way" | hush chat bob
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The contact's or group's name (contact:NAME or group:NAME when both exist).") var name: String

    func run() async throws {
        try await reportingErrors {
            let session = try await ChatCommand.open(name, global: global)
            // Fails here, on the normal screen, when there is no such contact.
            let verification = try await session.verification()
            let history = try await session.lastMessages(ChatCommand.historyOnOpen)
            let group = try await session.group()

            let interactive = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
            let screen = ChatScreen(prompt: "> ", interactive: interactive)
            let view = ChatView(screen: screen, contact: name, style: Presentation.style, isGroup: group != nil)
            // The handlers first, raw mode after: a signal in between would otherwise end
            // the process with the terminal left raw.
            let rawModeHolder = Mutex<RawMode?>(nil)
            let signals = interactive ? TerminalSignals(onResize: { screen.resized() }, restore: {
                screen.close()
                rawModeHolder.withLock { $0?.restore() }
            }) : nil
            let rawMode = interactive ? RawMode() : nil
            rawModeHolder.withLock { $0 = rawMode }
            defer {
                screen.close()
                rawMode?.restore()
                signals?.cancel()
            }
            view.setVerification(verification)
            if let group {
                view.setMembers(try await session.senderNames(history))
                view.setMembers(group.members)
            }
            screen.open()
            for message in history { view.show(message) }

            let conversation = session.chat.conversation
            try await session.start(show: { event in ChatCommand.handle(event, in: conversation, view: view) },
                                    status: { view.setPresence($0) },
                                    lost: { view.error("the daemon holding the account stopped: this chat can send and receive nothing more; leave it and open it again (`hush daemon status` says whether one runs)") })
            var tooLong: Int?
            // The first line refused (not sent, say), for a script's exit code as `hush send` gives it.
            var refused: Int32?
            reading: for await bytes in ChatScreen.inputBytes() {
                for event in screen.feed(bytes) {
                    switch event {
                    case .edited:
                        if !ChatInput.isCommand(screen.inputText) { await session.edited() }
                    case .pageUp, .pageDown:
                        break // the screen scrolled itself
                    case let .submitted(line):
                        if !(await ChatCommand.perform(ChatInput(parsing: line), session: session, view: view, failure: &refused)) {
                            break reading
                        }
                    case let .tooLong(bytes):
                        if interactive {
                            view.error(ChatCommand.tooLongMessage(bytes))
                        } else {
                            // A script's line is never sent cut, nor skipped quietly: the chat stops with an error.
                            tooLong = bytes
                            break reading
                        }
                    case .finished, .interrupted:
                        break reading
                    }
                }
            }
            // Without a terminal, give the outbox and receipts a moment to leave before closing.
            let outcome = await session.finish(flush: !interactive)
            if let tooLong {
                printError(ChatCommand.tooLongMessage(tooLong) + "; the chat stopped there")
                throw ExitCode(.failure)
            }
            // Said again once the screen is gone, with its code (the chat exited 0).
            if let replacement = session.replacement {
                printError(replacement.terminalReport.message)
                throw ExitCode(.homeReplaced)
            }
            if let status = ChatCommand.exitStatus(for: outcome) {
                printError(ChatCommand.describe(outcome))
                throw ExitCode(status)
            }
            // A line refused without a terminal (an admin removed us, an unknown command's target) was
            // printed where it happened; the script learns it from the code too (it exited 0).
            if !interactive, let refused { throw ExitCode(refused) }
        }
    }

    /// The chat with `name`: through the daemon when one owns the account
    /// (the chat is then one more of its clients, never a second writer),
    /// else on the account opened here.
    static func open(_ name: String, global: GlobalOptions) async throws -> ChatSession {
        let home = HomeDirectory.absolute(try global.homeDirectory())
        if let daemon = try DaemonForwarding.answeringConnection(home: home) {
            return ChatSession(chat: try await DaemonChatAccount.open(daemon, home: home, name: name), contact: name)
        }
        let account = try await global.openAccount()
        return ChatSession(chat: try await LocalChatAccount.open(account, name: name, ownsLiveConnection: true), contact: name)
    }

    /// The code `hush send` would exit with for the chat's messages: 22 when one
    /// failed or the relay refused it, 25 when one waits in the outbox because
    /// the relay was not reached, nil when all reached the relay.
    static func exitStatus(for outcome: ChatSession.Outcome) -> ExitStatus? {
        if outcome.failed > 0 || (outcome.pending > 0 && outcome.refusedByRelay) { return .relayUnavailable }
        return outcome.pending > 0 ? .queued : nil
    }

    static func describe(_ outcome: ChatSession.Outcome) -> String {
        var parts: [String] = []
        if outcome.pending > 0 {
            parts.append("\(outcome.pending) message(s) not delivered to the relay yet; they stay in the outbox and `hush sync` retries them")
        }
        if outcome.failed > 0 {
            parts.append("\(outcome.failed) message(s) not taken by the relay and not retried; `hush retry` tries again")
        }
        return parts.joined(separator: "; ")
    }

    static func tooLongMessage(_ bytes: Int) -> String {
        "line too long: \(bytes) bytes, at most \(LineEditor.maximumBytes); not sent"
    }

    /// How many messages the screen opens with.
    static let historyOnOpen = 50

    /// Carries out a typed line; false when the chat should end.
    /// `failure` keeps the exit code of the first message or file that could not be sent.
    static func perform(_ input: ChatInput, session: ChatSession, view: ChatView, failure: inout Int32?) async -> Bool {
        do {
            switch input {
            case .nothing:
                break
            case .quit:
                return false
            case let .message(text):
                if let message = try await session.submit(text) { view.show(message) }
            case .help:
                view.notice("── commands (never sent) ──")
                view.notice("  " + ChatInput.handleHelp)
                for (usage, meaning) in ChatInput.commandHelp { view.notice("  \(usage)  \(meaning)") }
            case let .history(count):
                let messages = try await session.lastMessages(count)
                if view.isGroup { view.setMembers(try await session.senderNames(messages)) }
                view.block(title: "the last \(messages.count) message\(messages.count == 1 ? "" : "s")", messages: messages)
            case let .search(text):
                let found = try await session.search(text)
                if view.isGroup { view.setMembers(try await session.senderNames(found)) }
                view.block(title: "\(found.count) message\(found.count == 1 ? "" : "s") with “\(UntrustedText.sanitized(text, keepingLineBreaks: false))”",
                           messages: found)
            case .verify(code: nil):
                view.notice("── safety number with \(view.contact) ──")
                let groups = try await session.safetyNumber()
                for row in stride(from: 0, to: groups.count, by: 4) {
                    view.notice("  " + groups[row..<min(row + 4, groups.count)].joined(separator: " "))
                }
                view.notice("  compare it with theirs in person or over a channel you trust, then /verify DIGITS")
            case let .verify(code?):
                if try await session.verify(code: code) {
                    view.notice("the safety numbers match: \(view.contact) is now verified")
                } else {
                    view.error("the safety numbers do NOT match: do not trust this session; someone may be in the middle, or the digits were misread")
                }
                view.setVerification(try await session.verification())
            case let .file(path):
                view.notice("sending \(UntrustedText.sanitized((path as NSString).lastPathComponent, keepingLineBreaks: false)) …")
                view.show(try await session.submitFile(path))
            case let .reply(handle, text):
                view.show(try await session.reply(to: try await session.resolve(handle, for: .received), text: text))
            case let .react(handle, emoji?):
                let id = try await session.resolve(handle, for: .received)
                try await session.react(to: id, with: emoji)
                view.notice("you reacted \(emoji) to message [\(id)]")
            case let .react(handle, nil):
                let id = try await session.resolve(handle, for: .received)
                try await session.react(to: id, with: nil)
                view.notice("your reaction to message [\(id)] is taken away")
            case let .edit(handle, text):
                view.edited(try await session.edit(try await session.resolve(handle, for: .ownText), text: text))
            case let .fetch(handle):
                try await fetch(try await session.resolve(handle, for: .receivedFile), session: session, view: view)
            case let .delete(id, forEveryone):
                try await view.deleting(id, forEveryone: forEveryone) {
                    try await session.delete(MessageID(rawValue: id), forEveryone: forEveryone)
                }
            case let .disappear(seconds):
                view.show(try await session.setDisappearingTimer(seconds))
            case let .invalid(problem):
                view.error(problem)
            }
        } catch {
            view.error(ChatCommand.describe(error, for: input))
            // A message or file that could not be sent counts, as for `hush send`; a /fetch, /delete or
            // /react naming a message that is not there does not end a script's chat in failure.
            switch input {
            case .message, .file, .reply: failure = failure ?? ExitStatus.code(for: error)
            default: break
            }
        }
        return true
    }

    /// `/fetch`: downloads the file of message `id` into the downloads
    /// folder, its progress on a line of its own that changes in place (in
    /// tenths; printed once at the end without a terminal).
    private static func fetch(_ id: MessageID, session: ChatSession, view: ChatView) async throws {
        let key = "fetch-\(id)"
        let last = Mutex(-1)
        view.progress(key: key, "fetching the file of message [\(id)] …")
        let fetched = try await session.fetch(id, into: ChatSession.downloadsFolder()) { done, total in
            guard total > 0 else { return }
            let tenth = Int(done * 10 / total)
            guard last.withLock({ seen in defer { seen = max(seen, tenth) }; return tenth > seen }) else { return }
            view.progress(key: key, "fetching the file of message [\(id)]: \(ProgressDisplay.bytes(done)) of \(ProgressDisplay.bytes(total)) (\(tenth * 10) %)")
        }
        view.progress(key: key, "[\(id)] \(fetched.fileName) saved to \(fetched.path) (\(ProgressDisplay.bytes(fetched.size)), checked)", final: true)
    }

    private static func describe(_ error: any Error, for input: ChatInput) -> String {
        var reason = ExitStatus.message(for: error)
        // In a chat the ids are a command away (the process's message names `hush history NAME`).
        if let error = error as? HushError, error.kind == .notFound, case let .message(id)? = error.subject {
            reason = "no message with id \(id) in this conversation: /history shows the ids in brackets"
        }
        switch input {
        case .message, .file, .reply, .react, .edit, .disappear: return "not sent: \(reason)"
        case .fetch: return "not fetched: \(reason)"
        case .delete: return "not deleted: \(reason)"
        default: break
        }
        return reason
    }

    /// Draws what an event means for this conversation.
    static func handle(_ event: EventDetails, in conversation: ConversationID, view: ChatView) {
        switch event {
        case let .message(message, member, group?) where message.conversation == conversation:
            _ = group
            view.setMembers([message.senderAddress: member])
            view.show(message)
        case let .message(message, _, nil) where message.conversation == conversation:
            view.show(message)
        case let .message(message, _, _) where message.direction == .outgoing:
            // Written on this home to another conversation (`hush send` beside the chat): nothing new to read
            // (a walkthrough: each drew "new message from bob" in the chat with carol).
            break
        case let .message(_, member, group?):
            view.notice("new message from \(member) in \(group) (hush chat \(group))")
        case let .message(_, from, nil):
            view.notice("new message from \(from) (hush chat \(from))")
        case let .request(_, from):
            view.notice("message request from \(from) (hush requests)")
        case let .status(message, status, _) where message.conversation == conversation:
            view.statusChanged(message.clientMessageID, to: status)
        case let .resent(message, _) where message.conversation == conversation:
            view.notice("message \(message.clientMessageID.prefix(8)) could not be decrypted by \(view.contact); sent again")
        case let .reaction(message, _, summary) where message.conversation == conversation:
            let who = message.direction == .outgoing ? "your message" : "the message"
            view.notice("reactions to \(who) [\(message.id)] “\(Presentation.oneLine(message.text, length: 32))”: \(summary.isEmpty ? "none" : summary)")
        case let .edited(message, _) where message.conversation == conversation:
            view.edited(message)
        case let .deleted(message, _) where message.conversation == conversation:
            view.deleted(message)
        case let .undecryptable(reason, senderAsked: false):
            view.error("set aside an undecryptable envelope: \(reason)")
        case let .undecryptable(reason, senderAsked: true):
            view.notice("a message could not be opened yet (\(reason)); its sender was asked to send it again, so it should follow")
        case let .syncFailed(error) where error.kind == .homeReplaced:
            // Not tried again: this home is done with the relay.
            view.error(error.terminalReport.message)
        case let .syncFailed(error):
            view.error("could not take in what arrived: \(error.terminalReport.message) (it stays at the relay; tried again at the next message)")
        case let .missed(count):
            view.notice("\(count) updates were not shown (the screen fell behind); they are stored: leave and open the chat again to see them")
        default:
            break
        }
    }
}
