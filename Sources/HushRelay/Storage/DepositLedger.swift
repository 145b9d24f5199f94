/// What a driver lends `DepositPolicy`: reads and writes inside one open
/// transaction (or under one lock), so that the policy's checks and the store
/// are one atomic step. A driver that batches deposits (group commit) lends
/// one ledger to the whole batch; later deposits see what earlier ones wrote.
public protocol DepositLedger {
    func isRegistered(mailbox: [UInt8]) throws -> Bool
    func hasCredential(mailbox: [UInt8], hash: [UInt8]) throws -> Bool
    /// The earlier result for this request id, if any (idempotency).
    func earlierDeposit(mailbox: [UInt8], requestID: String) throws -> DepositRecord?
    /// What the mailbox holds now.
    func usage(mailbox: [UInt8]) throws -> MailboxUsage
    /// A new message id, higher than every id this mailbox has ever had,
    /// following `now` (`MessageIDClock`); and `previous`, an id below it and
    /// at or above every id the mailbox still holds (the last id it was given,
    /// or the highest one it holds; 0 for none). Nothing can commit into the
    /// mailbox between the two: ids of one mailbox are given in commit order.
    mutating func nextMessageID(mailbox: [UInt8], now: Int64) throws -> (id: UInt64, previous: UInt64)
    /// Stores the envelope under `record.messageID` and remembers the request
    /// id's result until `record.expiresAt`.
    mutating func store(mailbox: [UInt8], requestID: String, envelope: [UInt8], record: DepositRecord) throws
}

