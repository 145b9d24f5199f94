import HushRelay

/// `DepositLedger` for one batch: what the batch's checks need is read from
/// PostgreSQL first (the batch's mailbox rows locked FOR UPDATE, so no other
/// instance deposits to them until this transaction ends), the policy runs
/// over that snapshot, and the writes it makes are collected here to be
/// written in a few statements. Later deposits of the batch see what earlier
/// ones wrote, as with a ledger that writes through.
struct PostgresDepositLedger: DepositLedger {
    struct MailboxRow {
        var usage: MailboxUsage
        var lastID: UInt64
        var changed = false
    }
    /// A mailbox and a credential hash or a request id.
    struct Key<Value: Hashable>: Hashable {
        let mailbox: [UInt8]
        let value: Value
    }
    struct Written {
        let mailbox: [UInt8]
        let requestID: String
        let envelope: [UInt8]
        let record: DepositRecord
    }

    /// Registered mailboxes of the batch (a mailbox row exists for each registered identity).
    var mailboxes: [[UInt8]: MailboxRow]
    /// (mailbox, credential hash) pairs of the batch that are registered.
    let credentials: Set<Key<[UInt8]>>
    /// (mailbox, request id) pairs of the batch already stored.
    var deposits: [Key<String>: DepositRecord]
    private(set) var written: [Written] = []

    func isRegistered(mailbox: [UInt8]) throws -> Bool { mailboxes[mailbox] != nil }

    func hasCredential(mailbox: [UInt8], hash: [UInt8]) throws -> Bool {
        credentials.contains(Key(mailbox: mailbox, value: hash))
    }

    func earlierDeposit(mailbox: [UInt8], requestID: String) throws -> DepositRecord? {
        deposits[Key(mailbox: mailbox, value: requestID)]
    }

    func usage(mailbox: [UInt8]) throws -> MailboxUsage {
        mailboxes[mailbox]?.usage ?? MailboxUsage(count: 0, bytes: 0)
    }

    /// Per mailbox: max(now_ms << 10, last id + 1). The row lock makes the
    /// ids of one mailbox increase in commit order across instances.
    /// `previous` is the row's last id, the one given before this.
    mutating func nextMessageID(mailbox: [UInt8], now: Int64) throws -> (id: UInt64, previous: UInt64) {
        guard var row = mailboxes[mailbox] else { throw RelayError.notFound("mailbox") }
        let previous = row.lastID
        var clock = MessageIDClock(last: previous)
        row.lastID = clock.next(nowMilliseconds: now)
        mailboxes[mailbox] = row
        return (row.lastID, previous)
    }

    mutating func store(mailbox: [UInt8], requestID: String, envelope: [UInt8], record: DepositRecord) throws {
        guard var row = mailboxes[mailbox] else { throw RelayError.notFound("mailbox") }
        row.usage.count += 1
        row.usage.bytes += envelope.count
        row.changed = true
        mailboxes[mailbox] = row
        deposits[Key(mailbox: mailbox, value: requestID)] = record
        written.append(Written(mailbox: mailbox, requestID: requestID, envelope: envelope, record: record))
    }
}
