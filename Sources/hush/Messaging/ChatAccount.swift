import Foundation
import HushKit

/// What `hush chat` needs from the account for one conversation, whoever
/// holds the account: this process (`LocalChatAccount`) or a running daemon
/// (`DaemonChatAccount`, over its socket). `ChatSession` keeps the chat's own
/// state (presence, typing, its messages) on top of it.
protocol ChatAccount: Sendable {
    /// The conversation the chat is in.
    var conversation: ConversationID { get }
    /// The contact of a one-to-one chat; nil for a group's.
    var contactID: ContactID? { get }

    func markRead() async throws
    /// Everything that happens on the account from now on, with the live
    /// connection up (it is started here, or already up in the daemon). It
    /// ends only when the account is gone (the daemon stopped).
    func events() async throws -> AsyncStream<EventDetails>
    /// A heartbeat or typing indicator, over the account's live socket.
    func setTyping(_ active: Bool) async throws
    /// The contact's verification state; a group's is its least trusted member's.
    func verification() async throws -> Contact.Verification
    /// For a group: its name and each member's name by address; nil for a contact.
    func group() async throws -> (name: String, members: [String: String])?
    /// The name to show for each incoming message's sender, by address.
    func senderNames(_ messages: [Message]) async throws -> [String: String]
    /// The last `count` messages, oldest first.
    func lastMessages(_ count: Int) async throws -> [Message]
    /// This conversation's messages matching `text`, oldest first.
    func search(_ text: String, limit: Int) async throws -> [Message]
    func safetyNumber() async throws -> [String]
    func verify(code: String) async throws -> Bool
    func send(_ text: String) async throws -> ChatSent
    func sendFile(_ path: String) async throws -> ChatSent
    func reply(to id: MessageID, text: String) async throws -> ChatSent
    func react(to id: MessageID, with emoji: String?) async throws
    func edit(_ id: MessageID, text: String) async throws -> Message
    /// Downloads the file of message `id` into `folder` (a free name there);
    /// returns its name, size and where it was saved.
    func fetch(_ id: MessageID, into folder: String,
               progress: @escaping @Sendable (_ done: Int64, _ total: Int64) -> Void) async throws -> ChatFetched
    func delete(_ id: MessageID, forEveryone: Bool) async throws
    func setDisappearingTimer(_ seconds: UInt32) async throws -> Message
    /// Tries the outbox once; returns the messages the relay refused.
    func flushOutbox() async -> Set<MessageID>
    /// Lets the account go: stops what `events()` started and waits for it.
    func close() async
}

/// A message the chat sent, and whether the relay refused it (rather than not being reached).
struct ChatSent: Sendable {
    let message: Message
    let refusedByRelay: Bool
}

/// A file `/fetch` saved.
struct ChatFetched: Sendable {
    let fileName: String
    let size: Int64
    let path: String
}
