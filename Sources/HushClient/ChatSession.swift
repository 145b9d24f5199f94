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
    /// status line it leaves (also every 2 s).
    public func start(show: @escaping @Sendable (MessengerEvent) -> Void, status: @escaping @Sendable (String) -> Void) async throws {
        try await client.markRead(contact: contact)
        let client = client, contact = contact, presence = presence
        var started = client.startLive()
        started.append(Task {
            while !Task.isCancelled {
                try? await client.sendTyping(false, to: contact)
                try? await Task.sleep(nanoseconds: ChatSession.heartbeatSeconds * 1_000_000_000)
            }
        })
        started.append(Task {
            for await event in client.events {
                show(event)
                switch event {
                case let .received(_, from) where from == contact:
                    presence.seen()
                    _ = try? await client.markRead(contact: contact)
                case let .typing(from, active) where from == contact:
                    presence.seen(typing: active)
                case let .connection(online):
                    presence.relayOnline = online
                default:
                    break
                }
                status(presence.status(for: contact))
            }
        })
        started.append(Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 2_000_000_000)
                status(presence.status(for: contact))
            }
        })
        lock.withLock { tasks += started }
    }

    /// The input line changed: tells the contact we are typing, at most every
    /// `typingIdleMilliseconds`.
    public func edited() async {
        let at = clock.now()
        let due: Bool = lock.withLock {
            guard typingSince.map({ at - $0 > ChatSession.typingIdleMilliseconds }) ?? true else { return false }
            typingSince = at
            return true
        }
        if due { try? await client.sendTyping(true, to: contact) }
    }

    /// Sends a submitted line; nil when it was blank.
    public func submit(_ text: String) async throws -> StoredMessage? {
        lock.withLock { typingSince = nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        return try await client.sendNow(text: trimmed, to: contact)
    }

    /// Stops everything; `flush` first gives the outbox and receipts a moment to leave.
    public func finish(flush: Bool) async {
        if flush { _ = await client.flushOutbox() }
        for task in lock.withLock({ tasks }) { task.cancel() }
    }
}
