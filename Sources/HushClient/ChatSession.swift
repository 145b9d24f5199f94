import Foundation
import HushCrypto
import HushMessenger
import HushStore

/// One open conversation in real time: the live connection, the heartbeat
/// that shows the contact we are here, typing indicators, presence and read
/// marks. The front end only draws what `start` hands it and feeds it input.
public final class ChatSession: @unchecked Sendable {
    /// An encrypted, never-stored heartbeat goes out this often.
    public static let heartbeatSeconds: UInt64 = 20
    /// A typing indicator is repeated at most this often while the user types.
    public static let typingIdleMilliseconds: Int64 = 4_000

    public let contact: String
    public let presence: Presence
    private let client: MessagingClient
    private let clock: any TimeSource
    private let lock = NSLock()
    private var tasks: [Task<Void, Never>] = []
    private var typingSince: Int64?
    /// This chat's messages (client ids), and those the relay refused rather than not being reached.
    private var submitted: [String] = []
    private var refused: Set<String> = []
    private var lastEdit: Int64?

    public init(client: MessagingClient, contact: String,
                clock: any TimeSource = SystemClock()) {
        self.client = client
        self.contact = contact
        self.clock = clock
        presence = Presence(clock: clock)
    }

    /// The latest messages, to show before `start`.
    public func recentMessages(limit: Int = 20) async throws -> [StoredMessage] {
        try await client.history(with: contact, limit: limit).messages
    }

    /// Marks the conversation read, then connects and keeps going until
    /// `finish`: `show` gets every event as it arrives, then `status` the
    /// status line it leaves (also every second, so "typing…" clears).
    ///
    /// Heartbeats and typing indicators go out only while the live socket is
    /// up: over it, never over a connection of their own (the relay closes an
    /// identity's oldest socket when one more opens, usually the live one).
    public func start(show: @escaping @Sendable (MessengerEvent) -> Void, status: @escaping @Sendable (String) -> Void) async throws {
        try await client.markRead(contact: contact)
        // Groups have no typing indicators or presence: only messages and receipts.
        let groupName = try await group()?.name
        let client = client, contact = contact, presence = presence
        // Subscribed before the live connection starts: nothing it stores is missed.
        let events = client.events
        var started = client.startLive()
        started.append(Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: ChatSession.heartbeatSeconds * 1_000_000_000)
                if presence.relayOnline, groupName == nil { try? await client.sendTyping(self.isTyping, to: contact) }
            }
        })
        started.append(Task {
            for await event in events {
                show(event)
                switch event {
                case let .received(_, from) where from == contact:
                    presence.seen()
                    _ = try? await client.markRead(contact: contact)
                case let .groupReceived(_, group, _) where group == groupName:
                    _ = try? await client.markRead(contact: contact)
                case let .typing(from, active, _) where from == contact:
                    // The contact just opened the chat: answer their heartbeat at once, so
                    // they see us online without waiting for our next one (a contact
                    // already online is not answered, so two chats never ping-pong).
                    if presence.seen(typing: active), presence.relayOnline { try? await client.sendTyping(self.isTyping, to: contact) }
                case let .connection(online):
                    presence.relayOnline = online
                    // The first heartbeat as soon as the socket is up: the contact sees us at once.
                    if online, groupName == nil { try? await client.sendTyping(self.isTyping, to: contact) }
                default:
                    break
                }
                status(presence.status(for: contact))
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
        let at = clock.now()
        return lock.withLock { lastEdit.map { at - $0 < ChatSession.typingIdleMilliseconds } ?? false }
    }

    /// The input line changed: tells the contact we are typing, at most every
    /// `typingIdleMilliseconds`.
    public func edited() async {
        let at = clock.now()
        let due: Bool = lock.withLock {
            lastEdit = at
            guard typingSince.map({ at - $0 > ChatSession.typingIdleMilliseconds }) ?? true else { return false }
            typingSince = at
            return true
        }
        if due, presence.relayOnline, (try? await group()) == nil { try? await client.sendTyping(true, to: contact) }
    }

    /// The contact's verification state, for the header.
    public func verification() async throws -> VerificationState {
        if case let .group(name) = try await client.target(contact) {
            // A group is as trusted as its least trusted member.
            let states = try await client.group(name).members.compactMap(\.verification)
            if states.contains(.changed) { return .changed }
            return states.allSatisfy { $0 == .verified } ? .verified : .unverified
        }
        guard let contact = try await client.contacts().first(where: { $0.name == contact }) else {
            throw MessengerError.unknownContact(contact)
        }
        return contact.verification
    }

    /// For a group: its plain name and each member's address with the name
    /// to show for it; nil for a contact.
    public func group() async throws -> (name: String, members: [String: String])? {
        guard case let .group(name) = try await client.target(contact) else { return nil }
        var names: [String: String] = [:]
        for member in try await client.group(name).members { names[member.address] = member.name }
        return (name, names)
    }

    /// The name to show for each incoming message's sender, by address: a
    /// former member (left or removed) is no longer among `group()`'s members,
    /// but their old messages still name them (a contact's name, else their address).
    public func senderNames(_ messages: [StoredMessage]) async throws -> [String: String] {
        var names: [String: String] = [:]
        for message in messages where message.direction == .incoming && names[message.sender] == nil {
            names[message.sender] = try await client.memberName(address: message.sender)
        }
        return names
    }

    /// The last `count` messages of the conversation, oldest first.
    public func lastMessages(_ count: Int) async throws -> [StoredMessage] {
        try await client.history(with: contact, limit: count).messages
    }

    /// Messages of this conversation that match `text` (full-text, as `hush search`), oldest first.
    public func search(_ text: String, limit: Int = 20) async throws -> [StoredMessage] {
        // The index spans every conversation: ask for more, keep this one's.
        let hits = try await client.search(text, limit: limit * 10).filter { $0.contact == contact }
        return hits.prefix(limit).map(\.hit.message).sorted { $0.position < $1.position }
    }

    /// The safety number's 60 digits in groups of five.
    public func safetyNumber() async throws -> String {
        try await client.safetyNumber(with: contact).number.grouped
    }

    /// Compares the digits the contact read out; a match marks them verified.
    public func verify(code: String) async throws -> Bool {
        try await client.compareSafetyNumber(with: contact, code: code)
    }

    /// Sends a submitted line; nil when it was blank.
    public func submit(_ text: String) async throws -> StoredMessage? {
        lock.withLock {
            typingSince = nil
            lastEdit = nil
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        let (message, refusedByRelay, _) = try await client.send(text: trimmed, to: contact)
        lock.withLock {
            submitted.append(message.clientMessageId)
            if refusedByRelay { refused.insert(message.clientMessageId) }
        }
        return message
    }

    /// Sends the file at `path` (`/file`): sealed here, uploaded, and its
    /// pointer sent like a message, which is returned.
    public func submitFile(_ path: String) async throws -> StoredMessage {
        let (message, _, reason) = try await client.sendFile(at: path, to: contact, caption: nil)
        lock.withLock {
            submitted.append(message.clientMessageId)
            if message.status == .failed, reason != nil { refused.insert(message.clientMessageId) }
        }
        return message
    }

    /// What became of the messages sent in this chat, once it is over.
    public struct Outcome: Sendable, Equatable {
        /// Still in the outbox (the relay was not reached, or refused them for now).
        public var pending = 0
        /// Given up on (a refusal that is not retried; `hush retry` tries again).
        public var failed = 0
        /// Whether the relay refused one of them rather than not being reached.
        public var refusedByRelay = false
        public var allSent: Bool { pending == 0 && failed == 0 }
    }

    /// Stops everything; `flush` first gives the outbox and receipts a moment to leave.
    /// Waits up to `ChatSession.finishSeconds` for them to end, so the process
    /// does not exit while one is in the middle of a database write.
    /// Returns what became of this chat's messages (after the flush, when asked for one).
    @discardableResult
    public func finish(flush: Bool) async -> Outcome {
        if flush {
            let report = await client.flushOutbox()
            if !report.refusedMessageIDs.isEmpty {
                let ids = (try? await lastMessages(lock.withLock { submitted.count } + 500)) ?? []
                lock.withLock {
                    for message in ids where report.refusedMessageIDs.contains(message.id) { refused.insert(message.clientMessageId) }
                }
            }
        }
        let outcome = flush ? await outcome() : Outcome()
        let running = lock.withLock { tasks }
        for task in running { task.cancel() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for task in running { await task.value }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(ChatSession.finishSeconds * 1_000_000_000))
            }
            await group.next()
            group.cancelAll()
        }
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
        for message in recent where ids.contains(message.clientMessageId) {
            switch message.status {
            case .pending: outcome.pending += 1
            case .failed: outcome.failed += 1
            default: continue
            }
            if refusedIDs.contains(message.clientMessageId) { outcome.refusedByRelay = true }
        }
        return outcome
    }

    /// How long `finish` waits for the connection and its tasks to stop.
    public static let finishSeconds = 2.0
}
