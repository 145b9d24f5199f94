import HushMessenger
import HushStore

/// The long-running side of a client: the live connection, its events, typing.
extension MessagingClient {
    public var events: AsyncStream<MessengerEvent> { messenger.eventStream }

    /// Starts the live connection and the outbox retries; cancel the tasks to stop.
    public func startLive() -> [Task<Void, Never>] {
        let messenger = messenger
        return [Task { await messenger.runLive() }, Task { await messenger.runOutboxRetries() }]
    }

    public func sendTyping(_ active: Bool, to contact: String) async throws {
        try await messenger.sendTyping(active, to: contact)
    }

    /// Posts what the outbox holds, once.
    public func flushOutbox() async -> OutboxReport { await messenger.flushOutbox() }

    /// Sends without waiting to learn how the relay answered.
    public func sendNow(text: String, to contact: String) async throws -> StoredMessage {
        try await messenger.send(text: text, to: contact)
    }
}
