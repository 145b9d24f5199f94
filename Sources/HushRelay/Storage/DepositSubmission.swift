import HushCrypto
import HushRelayAPI
import Synchronization

/// One deposit with everything `DepositPolicy` checks before storing it, so
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

extension DepositSubmission {
    /// Each deposit with its envelope's SHA-256, hashed once for a run of
    /// deposits that share one envelope (a fan-out's), not once per recipient.
    public static func digested(_ deposits: [DepositSubmission]) -> [(submission: DepositSubmission, digest: [UInt8])] {
        var last: (envelope: [UInt8], digest: [UInt8])?
        return deposits.map { deposit in
            if let last, last.envelope == deposit.envelope { return (deposit, last.digest) }
            let digest = SHA256.hash(deposit.envelope)
            last = (deposit.envelope, digest)
            return (deposit, digest)
        }
    }

    /// The same deposit, its first-contact admission run at most once: a
    /// driver that retries a transaction (PostgreSQL, after a conflict with
    /// another instance) must not charge the sender's rate limit twice.
    public func admittingOnce() -> DepositSubmission {
        guard case let .firstContact(admit) = admission else { return self }
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        var copy = self
        copy.admission = .firstContact {
            try outcome.withLock { outcome in
                if outcome == nil { outcome = Result { try admit() } }
                return try outcome!.get()
            }
        }
        return copy
    }
}
