import Foundation
import HushKit
import HushTerminal

/// One open conversation in real time: the live connection, the heartbeat
/// that shows the contact we are here, typing indicators, presence and read
/// marks. The front end only draws what `start` hands it and feeds it input.
final class ChatSession: @unchecked Sendable {
    /// An encrypted, never-stored heartbeat goes out this often.
    static let heartbeatSeconds: UInt64 = 20
    /// A typing indicator is repeated at most this often while the user types.
    static let typingIdleMilliseconds: Int64 = 4_000

    /// The account's side of the chat: in this process, or the daemon's.
    let chat: any ChatAccount
    /// The name the chat was opened with.
    let contact: String
    let presence: Presence
    private let now: @Sendable () -> Int64
    private let lock = NSLock()
    private var tasks: [Task<Void, Never>] = []
    private var typingSince: Int64?
    /// This chat's messages (client ids), and those the relay refused rather than not being reached.
    private var submitted: [String] = []
    private var refused: Set<String> = []
    /// Set when the live connection said another home replaced this one (§19.4).
    private var replacedBy: HushError?
    private var lastEdit: Int64?

    init(chat: any ChatAccount, contact: String, now: @escaping @Sendable () -> Int64 = Presence.wallClock) {
        self.chat = chat
        self.contact = contact
        self.now = now
        presence = Presence(now: now)
    }

    var contactID: ContactID? { chat.contactID }

    private var isGroup: Bool { contactID == nil }

    /// Marks the conversation read, then connects and keeps going until
    /// `finish`: `show` gets every event as it arrives, then `status` the
    /// status line it leaves (also every second, so "typing…" clears);
    /// `lost` when the events end before `finish` (the daemon holding the
    /// account stopped: nothing more can be sent or received).
    ///
    /// Heartbeats and typing indicators go out only while the live socket is
    /// up: over it, never over a connection of their own (the relay closes an
    /// identity's oldest socket when one more opens, usually the live one).
    func start(show: @escaping @Sendable (EventDetails) -> Void, status: @escaping @Sendable (String) -> Void,
               lost: @escaping @Sendable () -> Void = {}) async throws {
        try await chat.markRead()
        let chat = chat, contact = contact, presence = presence, contactID = contactID
        // Groups have no typing indicators or presence: only messages and receipts.
        let isGroup = isGroup
        let events = try await chat.events()
        var started: [Task<Void, Never>] = []
        started.append(Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: ChatSession.heartbeatSeconds * 1_000_000_000)
                if presence.relayOnline, !isGroup { try? await chat.setTyping(self.isTyping) }
            }
        })
        started.append(Task {
            for await details in events {
                // The chat showed its own message when it sent it: never a second time.
                if case let .message(message, _, _) = details, message.direction == .outgoing,
                   self.isOwn(message.clientMessageID) { continue }
                show(details)
                switch details {
                case let .message(message, _, _) where message.conversation == chat.conversation:
                    // A copy of what another device of ours sent says nothing of the contact.
                    if !isGroup, message.direction == .incoming { presence.seen() }
                    _ = try? await chat.markRead()
                case let .typing(from, _, active) where from == contactID:
                    // The contact just opened the chat: answer their heartbeat at once, so
                    // they see us online without waiting for our next one (a contact
                    // already online is not answered, so two chats never ping-pong).
                    if presence.seen(typing: active), presence.relayOnline { try? await chat.setTyping(self.isTyping) }
                case let .syncFailed(error) where error.kind == .homeReplaced:
                    presence.homeReplaced = true
                    lock.withLock { replacedBy = error }
                case let .connection(online):
                    presence.relayOnline = online
                    // The first heartbeat as soon as the socket is up: the contact sees us at once.
                    if online, !isGroup { try? await chat.setTyping(self.isTyping) }
                default:
                    break
                }
                status(presence.status(for: contact))
            }
            if !Task.isCancelled {
                presence.relayOnline = false
                lost()
            }
        })
        started.append(Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 1_000_000_000)
                status(presence.status(for: contact))
            }
        })
        lock.withLock { tasks += started }
    }

    /// Whether the user typed in the last `typingIdleMilliseconds`. A heartbeat
    /// says so: one saying "not typing" while keys are pressed would clear
    /// the indicator the contact was just shown.
    var isTyping: Bool {
        let at = now()
        return lock.withLock { lastEdit.map { at - $0 < ChatSession.typingIdleMilliseconds } ?? false }
    }

    /// The input line changed: tells the contact we are typing, at most every
    /// `typingIdleMilliseconds`.
    func edited() async {
        let at = now()
        let due: Bool = lock.withLock {
            lastEdit = at
            guard typingSince.map({ at - $0 > ChatSession.typingIdleMilliseconds }) ?? true else { return false }
            typingSince = at
            return true
        }
        if due, presence.relayOnline, !isGroup { try? await chat.setTyping(true) }
    }

    /// Whether the chat sent the message with this client id.
    private func isOwn(_ clientMessageID: String) -> Bool {
        lock.withLock { submitted.contains(clientMessageID) }
    }

    /// The contact's verification state, for the header; a group is as
    /// trusted as its least trusted member.
    func verification() async throws -> Contact.Verification { try await chat.verification() }

    /// For a group: its name and each member's address with the name to
    /// show for it; nil for a contact.
    func group() async throws -> (name: String, members: [String: String])? { try await chat.group() }

    /// The name to show for each incoming message's sender, by address.
    func senderNames(_ messages: [Message]) async throws -> [String: String] { try await chat.senderNames(messages) }

    /// The last `count` messages of the conversation, oldest first.
    func lastMessages(_ count: Int) async throws -> [Message] { try await chat.lastMessages(count) }

    /// Messages of this conversation that match `text` (full-text, as `hush search`), oldest first.
    func search(_ text: String, limit: Int = 20) async throws -> [Message] { try await chat.search(text, limit: limit) }

    /// The safety number's 60 digits in groups of five.
    func safetyNumber() async throws -> [String] { try await chat.safetyNumber() }

    /// Compares the digits the contact read out; a match marks them verified.
    func verify(code: String) async throws -> Bool { try await chat.verify(code: code) }

    /// Counts a message the chat sent for its outcome.
    private func sent(_ sent: ChatSent) -> Message {
        lock.withLock {
            submitted.append(sent.message.clientMessageID)
            if sent.refusedByRelay { refused.insert(sent.message.clientMessageID) }
        }
        return sent.message
    }

    /// Sends a submitted line; nil when it was blank.
    func submit(_ text: String) async throws -> Message? {
        lock.withLock {
            typingSince = nil
            lastEdit = nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        return sent(try await chat.send(trimmed))
    }

    /// Sends the file at `path` (`/file`): sealed here, uploaded, and its
    /// pointer sent like a message, which is returned.
    func submitFile(_ path: String) async throws -> Message {
        sent(try await chat.sendFile(path))
    }

    /// Sends `text` as a reply quoting message `id` of this conversation
    /// (`/reply`), counted with the chat's messages; returns it.
    func reply(to id: MessageID, text: String) async throws -> Message {
        sent(try await chat.reply(to: id, text: text))
    }

    /// Sets or takes away (`nil`) our reaction to message `id` (`/react`, `/unreact`).
    func react(to id: MessageID, with emoji: String?) async throws {
        try await chat.react(to: id, with: emoji)
    }

    /// Replaces the text of our message `id` (`/edit`); returns it as it now stands.
    func edit(_ id: MessageID, text: String) async throws -> Message {
        try await chat.edit(id, text: text)
    }

    /// What a command with a message handle wants the handle to name.
    enum HandleUse {
        /// /reply, /react: a message someone else wrote.
        case received
        /// /edit: one of our texts.
        case ownText
        /// /fetch: a file someone sent.
        case receivedFile
    }

    /// The message a handle names: `id` as given, or for "last" (nil) the
    /// latest message of this conversation that suits `use`.
    func resolve(_ id: Int64?, for use: HandleUse) async throws -> MessageID {
        if let id { return MessageID(rawValue: id) }
        let recent = try await lastMessages(ChatSession.handleSearchDepth)
        let found = recent.last { ChatSession.suits(direction: $0.direction, kind: $0.kind, isDeleted: $0.isDeleted, use) }
        guard let found else {
            let what: String
            switch use {
            case .received: what = "message from them"
            case .ownText: what = "text of yours"
            case .receivedFile: what = "file received"
            }
            throw CommandError(.usage, "no \(what) among the last \(ChatSession.handleSearchDepth) messages: give its id (the number in brackets)")
        }
        return found.id
    }

    /// Whether a message "last" may name for `use`. A deleted message (a
    /// tombstone, §10.7), a timer change and a device-list notice are never
    /// it: nothing can be replied to, reacted to, edited or fetched there.
    static func suits(direction: Message.Direction, kind: Message.Kind, isDeleted: Bool, _ use: HandleUse) -> Bool {
        guard !isDeleted, kind != .timerChange, kind != .deviceListChange else { return false }
        switch use {
        case .received: return direction == .incoming
        case .ownText: return direction == .outgoing && kind == .text
        case .receivedFile: return direction == .incoming && kind == .file
        }
    }

    /// How far back "last" looks.
    static let handleSearchDepth = 200

    /// Downloads and checks the file message `id` carries (`/fetch`), then
    /// saves it in `folder` under its sender's file name (defused; with a
    /// number added when that name is taken: nothing is replaced). Returns
    /// the attachment and where it was saved.
    func fetch(_ id: MessageID, into folder: String,
               progress: @escaping @Sendable (_ done: Int64, _ total: Int64) -> Void) async throws -> ChatFetched {
        try await chat.fetch(id, into: folder, progress: progress)
    }

    /// The folder /fetch saves into: `$XDG_DOWNLOAD_DIR` when it is an
    /// absolute path, else `~/Downloads`.
    static func downloadsFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let folder = environment["XDG_DOWNLOAD_DIR"], folder.hasPrefix("/") { return folder }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/Downloads"
    }

    /// A path in `folder` for a file its sender named `name`: only the last
    /// component, without control characters, not hidden, and not a name
    /// already there ("photo.jpg", then "photo-1.jpg", …).
    static func freePath(in folder: String, for name: String, fallback: String) -> String {
        var base = String(name.split(separator: "/").last ?? "")
            .unicodeScalars.filter { $0.properties.generalCategory != .control && $0 != "\u{0}" }
            .map(String.init).joined()
        base = UntrustedText.sanitized(base, keepingLineBreaks: false)
        while base.hasPrefix(".") { base.removeFirst() }
        if base.isEmpty { base = fallback }
        let stem = (base as NSString).deletingPathExtension, ext = (base as NSString).pathExtension
        var candidate = base, number = 0
        while FileManager.default.fileExists(atPath: folder + "/" + candidate) {
            number += 1
            candidate = ext.isEmpty ? "\(stem)-\(number)" : "\(stem)-\(number).\(ext)"
        }
        return folder + "/" + candidate
    }

    /// Deletes message `id` here, or for everyone (`/delete`, `/delete!`).
    func delete(_ id: MessageID, forEveryone: Bool) async throws {
        try await chat.delete(id, forEveryone: forEveryone)
    }

    /// Sets the conversation's disappearing timer (`/disappear`); returns the change as stored.
    func setDisappearingTimer(_ seconds: UInt32) async throws -> Message {
        try await chat.setDisappearingTimer(seconds)
    }

    /// What became of the messages sent in this chat, once it is over.
    struct Outcome: Sendable, Equatable {
        /// Still in the outbox (the relay was not reached, or refused them for now).
        var pending = 0
        /// Given up on (a refusal that is not retried; `hush retry` tries again).
        var failed = 0
        /// Whether the relay refused one of them rather than not being reached.
        var refusedByRelay = false
        var allSent: Bool { pending == 0 && failed == 0 }
    }

    /// The error the live connection ended with when another home replaced
    /// this one; the chat ends with its exit code.
    var replacement: HushError? { lock.withLock { replacedBy } }

    /// Stops everything; `flush` first gives the outbox and receipts a moment to leave.
    /// Waits up to `ChatSession.finishSeconds` for them to end, so the process
    /// does not exit while one is in the middle of a database write.
    /// Returns what became of this chat's messages (after the flush, when asked for one).
    @discardableResult
    func finish(flush: Bool) async -> Outcome {
        if flush {
            let refusedNow = await chat.flushOutbox()
            if !refusedNow.isEmpty {
                let recent = (try? await lastMessages(lock.withLock { submitted.count } + 500)) ?? []
                lock.withLock {
                    for message in recent where refusedNow.contains(message.id) { refused.insert(message.clientMessageID) }
                }
            }
        }
        let outcome = flush ? await outcome() : Outcome()
        let running = lock.withLock { tasks }
        for task in running { task.cancel() }
        let chat = chat
        // Whichever ends the stream first: everything stopped, or the time is up. Not a task
        // group, which would wait for its children to end however long they took.
        let (stopped, stop) = AsyncStream<Void>.makeStream()
        Task {
            // The live connection too: the process must not exit in the middle of its write.
            await chat.close()
            for task in running { await task.value }
            stop.finish()
        }
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(ChatSession.finishSeconds * 1_000_000_000))
            stop.finish()
        }
        for await _ in stopped {}
        timer.cancel()
        return outcome
    }

    private func outcome() async -> Outcome {
        let (ids, refusedIDs) = lock.withLock { (Set(submitted), refused) }
        var outcome = Outcome()
        guard !ids.isEmpty else { return outcome }
        // This chat's messages are among the latest of the conversation.
        guard let recent = try? await lastMessages(ids.count + 500) else {
            outcome.pending = ids.count
            return outcome
        }
        for message in recent where ids.contains(message.clientMessageID) {
            switch message.status {
            case .pending: outcome.pending += 1
            case .failed: outcome.failed += 1
            default: continue
            }
            if refusedIDs.contains(message.clientMessageID) { outcome.refusedByRelay = true }
        }
        return outcome
    }

    /// How long `finish` waits for the connection and its tasks to stop.
    static let finishSeconds = 2.0
}
