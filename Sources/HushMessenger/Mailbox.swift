import HushProtocol

/// Mailboxes at the relay: depositing into others', reading and emptying ours.
public protocol Mailbox: Sendable {
    /// Deposits a sealed envelope, idempotent on `requestID`.
    func deposit(_ envelope: [UInt8], to recipient: IdentityKey, requestID: String,
                 credential: [UInt8]?) async throws(DeliveryFailure) -> DepositReceipt
    /// Deposits one sealed envelope (a group message, encrypted once) for
    /// every recipient, idempotent on `requestID` per mailbox. One result per
    /// recipient, in order: a recipient the relay refuses fails alone.
    /// Throws only when the request fails as a whole (the relay unreachable,
    /// 5xx, the request rate-limited).
    func depositFanOut(_ envelope: [UInt8], requestID: String,
                       to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>]
    /// Envelopes after `serverID` (exclusive), oldest first.
    func fetch(after serverID: Int64, limit: Int) async throws(DeliveryFailure) -> MailboxPage
    /// Tells the relay it may delete these envelopes (we have stored them).
    func acknowledge(_ serverIDs: [Int64]) async throws(DeliveryFailure)
}

extension Mailbox {
    /// One `deposit` per recipient, in order (transports without a fan-out,
    /// such as test doubles). A failure that concerns the relay rather than
    /// the recipient (unreachable, a login needed) throws, as a whole
    /// fan-out request would; the recipients already deposited stay
    /// deposited, and the same request id repeats them harmlessly.
    public func depositFanOut(_ envelope: [UInt8], requestID: String,
                              to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        try await depositEach(envelope, requestID: requestID, to: recipients)
    }

    /// `depositFanOut` as one `deposit` per recipient (the default above,
    /// and what a test double does once it has checked the request).
    public func depositEach(_ envelope: [UInt8], requestID: String,
                            to recipients: [FanOutRecipient]) async throws(DeliveryFailure) -> [Result<DepositReceipt, DeliveryFailure>] {
        var results: [Result<DepositReceipt, DeliveryFailure>] = []
        results.reserveCapacity(recipients.count)
        for recipient in recipients {
            do {
                results.append(.success(try await deposit(envelope, to: recipient.key, requestID: requestID, credential: recipient.credential)))
            } catch {
                switch error {
                case .unavailable, .unauthorized: throw error
                default: results.append(.failure(error))
                }
            }
        }
        return results
    }
}
