import Foundation
import HushKit

/// The chat's account opened in this process: HushKit called directly.
/// Also what the daemon's chat methods run on (`DaemonChatMethods`), so a
/// chat through the daemon does exactly what one in its own process does.
struct LocalChatAccount: ChatAccount {
    let account: HushAccount
    let room: Room
    let contactID: ContactID?
    /// Whether `events()` started the live connection (the daemon's is its own).
    let ownsLiveConnection: Bool

    var conversation: ConversationID { room.id }

    /// The conversation with the contact or group the user named.
    static func open(_ account: HushAccount, name: String, ownsLiveConnection: Bool) async throws -> LocalChatAccount {
        let (room, target) = try await Names(account: account).room(name)
        var contactID: ContactID?
        if case let .contact(contact) = target { contactID = contact.id }
        return LocalChatAccount(account: account, room: room, contactID: contactID, ownsLiveConnection: ownsLiveConnection)
    }

    func markRead() async throws { try await room.markRead() }

    func events() async throws -> AsyncStream<EventDetails> {
        // Subscribed before the live connection starts: nothing it stores is missed.
        let events = account.events()
        if ownsLiveConnection { account.startLive() }
        let account = account
        return AsyncStream { continuation in
            let reader = Task {
                for await event in events {
                    if let details = await EventDetails.read(event, from: account) { continuation.yield(details) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }

    func setTyping(_ active: Bool) async throws { try await room.setTyping(active) }

    func verification() async throws -> Contact.Verification {
        if let contactID { return try await account.contact(contactID).verification }
        let states = try await room.group()?.members.compactMap(\.verification) ?? []
        if states.contains(.changed) { return .changed }
        return states.allSatisfy { $0 == .verified } ? .verified : .unverified
    }

    func group() async throws -> (name: String, members: [String: String])? {
        guard let group = try await room.group() else { return nil }
        var names: [String: String] = [:]
        for member in group.members { names[member.address] = member.name }
        return (group.name, names)
    }

    /// A former member (left or removed) is no longer among `group()`'s members,
    /// but their old messages still name them (a contact's name, else their address).
    func senderNames(_ messages: [Message]) async throws -> [String: String] {
        var names: [String: String] = [:]
        for message in messages where message.direction == .incoming && names[message.senderAddress] == nil {
            names[message.senderAddress] = try await account.name(of: message.senderAddress)
        }
        return names
    }

    func lastMessages(_ count: Int) async throws -> [Message] {
        try await room.history(limit: count).messages
    }

    func search(_ text: String, limit: Int) async throws -> [Message] {
        // The index spans every conversation: ask for more, keep this one's.
        let hits = try await account.search(text, limit: limit * 10).filter { $0.message.conversation == room.id }
        return hits.prefix(limit).map(\.message).sorted { ($0.relayTimestamp ?? $0.createdAt, $0.id.rawValue) < ($1.relayTimestamp ?? $1.createdAt, $1.id.rawValue) }
    }

    func safetyNumber() async throws -> [String] {
        guard let contactID else { throw Self.groupHasNoSafetyNumber }
        return try await account.safetyNumber(with: contactID).groups
    }

    func verify(code: String) async throws -> Bool {
        guard let contactID else { throw Self.groupHasNoSafetyNumber }
        try SafetyNumberRule.check(code)
        return try await account.compareSafetyNumber(with: contactID, code: code)
    }

    private static var groupHasNoSafetyNumber: CommandError {
        CommandError(.usage, "a group has no safety number: verify each member with `hush verify NAME`")
    }

    func send(_ text: String) async throws -> ChatSent {
        let sent = try await room.sendReportingDelivery(text)
        return ChatSent(message: sent.message, refusedByRelay: sent.refusedByRelay)
    }

    func sendFile(_ path: String) async throws -> ChatSent {
        let (message, attachment) = try await room.sendFile(at: path)
        let reason = try await SendCommand.queueReason(message, attachment: attachment, account: account)
        return ChatSent(message: message, refusedByRelay: message.status == .failed && reason != nil)
    }

    func reply(to id: MessageID, text: String) async throws -> ChatSent {
        let sent = try await room.reply(to: id, text: text)
        return ChatSent(message: sent.message, refusedByRelay: sent.refusedByRelay)
    }

    func react(to id: MessageID, with emoji: String?) async throws { try await room.react(to: id, with: emoji) }

    func edit(_ id: MessageID, text: String) async throws -> Message { try await room.edit(id, text: text) }

    func fetch(_ id: MessageID, into folder: String,
               progress: @escaping @Sendable (_ done: Int64, _ total: Int64) -> Void) async throws -> ChatFetched {
        guard let message = try await account.message(id), message.conversation == room.id else {
            throw HushError(.notFound, reason: "no message with id \(id) in this conversation", subject: .message(id))
        }
        // A received file, or one another device of the account sent (this device downloads its copy).
        guard let attachment = try await account.attachment(of: id),
              message.direction == .incoming || [.available, .downloading, .ready].contains(attachment.state) else {
            throw CommandError(.usage, "message \(id) carries no file received here: /fetch takes a received file's id")
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let path = ChatSession.freePath(in: folder, for: attachment.fileName, fallback: "attachment-\(attachment.id)")
        let fetched = try await account.fetch(attachment.id, to: path) { progress($0.done, $0.total) }
        return ChatFetched(fileName: fetched.fileName, size: fetched.size, path: path)
    }

    func delete(_ id: MessageID, forEveryone: Bool) async throws { try await room.delete(id, forEveryone: forEveryone) }

    func setDisappearingTimer(_ seconds: UInt32) async throws -> Message { try await room.setDisappearingTimer(seconds) }

    func flushOutbox() async -> Set<MessageID> { await account.sendQueued().refused }

    func close() async {
        // The process must not exit in the middle of the live connection's write.
        if ownsLiveConnection { await account.stopLiveAndWait() }
    }
}
