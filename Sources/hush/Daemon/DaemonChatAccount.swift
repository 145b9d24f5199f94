import Foundation
import HushDaemon
import HushKit

/// The chat's account held by a running daemon: every operation is one of
/// its methods (`DaemonChatMethods`) over the socket, and the events come
/// from `events.subscribe` on a second connection of their own. Typing and
/// heartbeats go out over the daemon's live connection to the relay: the chat
/// opens none of its own.
final class DaemonChatAccount: ChatAccount, @unchecked Sendable {
    let conversation: ConversationID
    let contactID: ContactID?
    private let name: String
    private let home: String
    /// Calls go one at a time, blocking, on a queue of their own (never on Swift's few cooperative threads).
    private let calls: DaemonConnection
    private let queue = DispatchQueue(label: "hush.chat.daemon")
    private let lock = NSLock()
    private var subscription: DaemonConnection?
    /// The account's latest event seq when the chat opened, before it read
    /// any history: its events are replayed from there, so a message stored
    /// while the history loads shows too (a walkthrough: one written in
    /// another chat during a 14 s load never appeared). One the history holds
    /// as well is drawn once (`ChatView.show` knows it by its id).
    private var openedAtSeq: Int64 = 0
    /// Senders' names the daemon sent with messages, by address.
    private var names: [String: String] = [:]

    private init(connection: DaemonConnection, home: String, name: String, conversation: ConversationID, contactID: ContactID?) {
        calls = connection
        self.home = home
        self.name = name
        self.conversation = conversation
        self.contactID = contactID
    }

    /// The conversation named `name` in the account of the daemon `connection` answers for.
    static func open(_ connection: DaemonConnection, home: String, name: String) async throws -> DaemonChatAccount {
        let opening = DaemonChatAccount(connection: connection, home: home, name: name, conversation: ConversationID(rawValue: 0), contactID: nil)
        // Before anything of the conversation is read (see `openedAtSeq`).
        let cursor = try await opening.call("events.cursor", ["subscriber": .string("hush-chat")], addressed: false)
        guard let latest = cursor["latest"]?.integerValue else { throw Self.unreadable }
        let opened = try await opening.call("conversations.open")
        guard let conversation = opened["conversationId"]?.integerValue else { throw Self.unreadable }
        let account = DaemonChatAccount(connection: connection, home: home, name: name, conversation: ConversationID(rawValue: conversation),
                                        contactID: opened["contactId"]?.integerValue.map(ContactID.init(rawValue:)))
        account.openedAtSeq = latest
        return account
    }

    private static var unreadable: CommandError {
        CommandError(.failure, "the daemon's answer could not be read: is it an older hush? (`hush daemon stop`, then start it again)")
    }

    /// Calls `method` with `to` and `params`; an error comes back as the one
    /// the command would have failed with (its exit code and message).
    @discardableResult
    private func call(_ method: String, _ params: [String: JSONValue] = [:], addressed: Bool = true,
                      notification: @escaping @Sendable (String, JSONValue) -> Void = { _, _ in }) async throws -> JSONValue {
        var params = params
        if addressed { params["to"] = .string(name) }
        let request = JSONValue.object(params), home = home
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    continuation.resume(returning: try self.calls.call(method, request, notification: notification))
                } catch let error as RPCError {
                    continuation.resume(throwing: CommandError(ExitStatus(rawValue: Int32(clamping: error.code)) ?? .failure, error.message))
                } catch {
                    continuation.resume(throwing: CommandError(.failure, "the daemon of \(home) did not answer: \(error): see `hush daemon status`"))
                }
            }
        }
    }

    private func message(_ value: JSONValue) throws -> Message {
        if let sender = value["sender"]?.stringValue, let name = value["senderName"]?.stringValue { lock.withLock { names[sender] = name } }
        return try ChatWire.message(value)
    }

    private func messages(_ value: JSONValue) throws -> [Message] {
        guard let list = value["messages"]?.arrayValue else { throw Self.unreadable }
        return try list.map(message)
    }

    private func sent(_ value: JSONValue) throws -> ChatSent {
        ChatSent(message: try message(value), refusedByRelay: value["refusedByRelay"]?.boolValue == true)
    }

    func markRead() async throws { try await call("conversations.markRead") }

    func events() async throws -> AsyncStream<EventDetails> {
        guard let opened = DaemonConnection.connect(home: home) else {
            throw CommandError(.failure, "the daemon of \(home) stopped: `hush daemon status` says whether it runs")
        }
        lock.withLock { subscription = opened }
        // Read by the one thread below only; shut down (thread-safe) from `close`.
        nonisolated(unsafe) let connection = opened
        let (stream, continuation) = AsyncStream<EventDetails>.makeStream()
        try await withCheckedThrowingContinuation { (subscribed: CheckedContinuation<Void, any Error>) in
            // Blocking reads on a thread of their own; they end when the connection is shut down.
            Thread {
                do {
                    _ = try connection.call("events.subscribe", .object(["details": .bool(true), "after": .number(Double(self.openedAtSeq))]))
                    subscribed.resume()
                } catch {
                    subscribed.resume(throwing: CommandError(.failure, "the daemon of \(self.home) refused the chat's events: \(error)"))
                    continuation.finish()
                    return
                }
                while let notification = try? connection.receive() {
                    guard notification["method"]?.stringValue == "event", let params = notification["params"] else { continue }
                    do {
                        if let event = try ChatWire.event(params) { continuation.yield(event) }
                    } catch {
                        continuation.yield(.syncFailed(HushError(.other, reason: "\(error)")))
                    }
                }
                continuation.finish()
            }.start()
        }
        return stream
    }

    func setTyping(_ active: Bool) async throws { try await call("typing.set", ["active": .bool(active)]) }

    func verification() async throws -> Contact.Verification {
        guard let state = try await call("conversations.open")["verification"]?.stringValue.flatMap(Contact.Verification.init(rawValue:)) else {
            throw Self.unreadable
        }
        return state
    }

    func group() async throws -> (name: String, members: [String: String])? {
        guard let group = try await call("conversations.open")["group"], let name = group["name"]?.stringValue else { return nil }
        var members: [String: String] = [:]
        if case let .object(listed)? = group["members"] {
            for (address, name) in listed { members[address] = name.stringValue }
        }
        return (name, members)
    }

    /// The daemon named the senders with the messages it sent.
    func senderNames(_ messages: [Message]) async throws -> [String: String] {
        let known = lock.withLock { names }
        var found: [String: String] = [:]
        for message in messages where message.direction == .incoming { found[message.senderAddress] = known[message.senderAddress] ?? message.senderAddress }
        return found
    }

    func lastMessages(_ count: Int) async throws -> [Message] {
        try messages(try await call("messages.history", ["limit": .number(Double(max(1, min(count, 10_000))))]))
    }

    func search(_ text: String, limit: Int) async throws -> [Message] {
        try messages(try await call("messages.search", ["text": .string(text), "limit": .number(Double(max(1, min(limit, 1_000))))]))
    }

    func safetyNumber() async throws -> [String] {
        guard let groups = try await call("contacts.safetyNumber")["groups"]?.arrayValue?.compactMap(\.stringValue) else { throw Self.unreadable }
        return groups
    }

    func verify(code: String) async throws -> Bool {
        try await call("contacts.verify", ["code": .string(code)])["match"]?.boolValue == true
    }

    func send(_ text: String) async throws -> ChatSent { try sent(try await call("messages.send", ["text": .string(text)])) }

    func sendFile(_ path: String) async throws -> ChatSent {
        // The daemon's working directory is not ours: it gets the path as we mean it.
        let absolute = path.hasPrefix("/") || path.hasPrefix("~") ? (path as NSString).expandingTildeInPath
            : FileManager.default.currentDirectoryPath + "/" + path
        return try sent(try await call("messages.sendFile", ["path": .string(absolute)]))
    }

    func reply(to id: MessageID, text: String) async throws -> ChatSent {
        try sent(try await call("messages.reply", ["id": .number(Double(id.rawValue)), "text": .string(text)]))
    }

    func react(to id: MessageID, with emoji: String?) async throws {
        try await call("messages.react", ["id": .number(Double(id.rawValue)), "emoji": emoji.map(JSONValue.string) ?? .null])
    }

    func edit(_ id: MessageID, text: String) async throws -> Message {
        try message(try await call("messages.edit", ["id": .number(Double(id.rawValue)), "text": .string(text)]))
    }

    func fetch(_ id: MessageID, into folder: String,
               progress: @escaping @Sendable (_ done: Int64, _ total: Int64) -> Void) async throws -> ChatFetched {
        let result = try await call("messages.fetch", ["id": .number(Double(id.rawValue)), "folder": .string(folder)]) { method, step in
            guard method == "fetch.progress", let done = step["done"]?.integerValue, let total = step["total"]?.integerValue else { return }
            progress(done, total)
        }
        guard let fileName = result["fileName"]?.stringValue, let size = result["size"]?.integerValue,
              let path = result["path"]?.stringValue else { throw Self.unreadable }
        return ChatFetched(fileName: fileName, size: size, path: path)
    }

    func delete(_ id: MessageID, forEveryone: Bool) async throws {
        try await call("messages.delete", ["id": .number(Double(id.rawValue)), "forEveryone": .bool(forEveryone)])
    }

    func setDisappearingTimer(_ seconds: UInt32) async throws -> Message {
        try message(try await call("conversations.setDisappearing", ["seconds": .number(Double(seconds))]))
    }

    func flushOutbox() async -> Set<MessageID> {
        let refused = (try? await call("outbox.flush", addressed: false))?["refused"]?.arrayValue ?? []
        return Set(refused.compactMap(\.integerValue).map(MessageID.init(rawValue:)))
    }

    /// Ends the subscription (its reading thread returns) and the calls' connection.
    func close() async {
        lock.withLock { subscription }?.shutdown()
        // After a call still in flight, on the calls' queue: never blocking one of Swift's threads.
        await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
            queue.async {
                self.calls.close()
                closed.resume()
            }
        }
    }
}
