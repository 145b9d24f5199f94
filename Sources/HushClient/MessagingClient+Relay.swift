import HushMessenger
import HushStore

/// Sending, syncing and registering: the operations that talk to the relay.
extension MessagingClient {
    /// Seals and posts a message. `reason` says why it is still pending or
    /// failed (nil once the relay has it); `refusedByRelay` tells a refusal
    /// from an unreachable relay.
    public func send(text: String, to contact: String) async throws -> (message: StoredMessage, refusedByRelay: Bool, reason: String?) {
        let (message, refused) = try await messenger.sendReportingDelivery(text: text, to: contact)
        guard message.status == .pending || message.status == .failed else { return (message, refused, nil) }
        let reason = try await messenger.outbox().first(where: { $0.messageId == message.id })?.lastError ?? "no answer"
        return (message, refused, reason)
    }

    /// Flushes the outbox, then fetches everything waiting; also counts the
    /// message requests now pending.
    public func sync() async throws -> (report: SyncReport, requests: Int) {
        let report = try await messenger.sync()
        return (report, try await messenger.messageRequests().count)
    }

    /// Posts failed and pending messages now (all, or the one whose request id starts with `requestID`).
    public func retry(requestID: String?) async throws -> OutboxReport {
        try await messenger.retry(requestID: requestID)
    }

    /// Publishes the identity and prekeys to the account's relay; returns its URL.
    public func register() async throws -> String {
        guard let relayURL else { throw MessengerError.notRegistered }
        try await messenger.register()
        return relayURL
    }

    public func isRegistered() async throws -> Bool { try await messenger.isRegistered() }
}
