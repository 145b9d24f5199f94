import HushRelayAPI

/// One deposit with everything the relay must check before storing it, so
/// that a driver can run the checks and the store as one atomic step, and
/// batch many such steps into one transaction (group commit).
public struct DepositSubmission: Sendable {
    /// What entitles the sender to deposit.
    public enum Admission: Sendable {
        /// The SHA-256 of the delivery credential the sender presented; it
        /// must be registered for the mailbox (`.invalidCredential` otherwise).
        case credential(hash: [UInt8])
        /// No credential: first contact. `admit` runs only when the request id
        /// is new for the mailbox (a repeat passes, as it stores nothing) and
        /// throws to refuse (the first-contact rate limits).
        case firstContact(admit: @Sendable () throws -> Void)
    }

    public var mailbox: [UInt8]
    public var requestID: String
    public var envelope: [UInt8]
    public var admission: Admission
    public var now: Int64
    public var expiresAt: Int64
    public var quota: MailboxQuota

    public init(mailbox: [UInt8], requestID: String, envelope: [UInt8], admission: Admission, now: Int64, expiresAt: Int64,
                quota: MailboxQuota) {
        self.mailbox = mailbox
        self.requestID = requestID
        self.envelope = envelope
        self.admission = admission
        self.now = now
        self.expiresAt = expiresAt
        self.quota = quota
    }
}

extension MailboxStorage {
    /// The checks and the store composed from the single-purpose calls, for
    /// drivers without a combined path. Not atomic across the calls, which
    /// only matters for the order of racing first contacts.
    public func submit(_ deposit: DepositSubmission) async throws -> DepositOutcome {
        guard try await isRegistered(identity: deposit.mailbox) else { throw RelayError.notFound("mailbox") }
        switch deposit.admission {
        case let .credential(hash):
            guard try await hasCredential(mailbox: deposit.mailbox, hash: hash) else { throw RelayError.invalidCredential }
        case let .firstContact(admit):
            if try await findDeposit(mailbox: deposit.mailbox, requestID: deposit.requestID) == nil { try admit() }
        }
        return try await self.deposit(mailbox: deposit.mailbox, requestID: deposit.requestID, envelope: deposit.envelope,
                                      now: deposit.now, expiresAt: deposit.expiresAt, quota: deposit.quota)
    }
}
