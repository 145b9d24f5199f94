/// The in-memory state is its own deposit ledger: the policy runs under the
/// storage's lock, over the state itself.
extension InMemoryRelayStorage.State: DepositLedger {
    func isRegistered(mailbox: [UInt8]) throws -> Bool { identities[mailbox] != nil }

    func hasCredential(mailbox: [UInt8], hash: [UInt8]) throws -> Bool {
        mailboxes[mailbox]?.credentials.contains(hash) ?? false
    }

    func earlierDeposit(mailbox: [UInt8], requestID: String) throws -> DepositRecord? {
        mailboxes[mailbox]?.deposits[requestID]
    }

    func usage(mailbox: [UInt8]) throws -> MailboxUsage {
        guard let box = mailboxes[mailbox] else { return MailboxUsage(count: 0, bytes: 0) }
        return MailboxUsage(count: box.messages.count, bytes: box.bytes)
    }

    mutating func nextMessageID(mailbox: [UInt8], now: Int64) throws -> (id: UInt64, previous: UInt64) {
        (ids.next(nowMilliseconds: now), mailboxes[mailbox]?.lastID ?? 0)
    }

    mutating func store(mailbox: [UInt8], requestID: String, envelope: [UInt8], record: DepositRecord) throws {
        // Taken out of the table while it changes, so that its dictionaries are
        // uniquely referenced and change in place instead of being copied whole.
        var box = mailboxes.removeValue(forKey: mailbox) ?? InMemoryRelayStorage.Mailbox()
        box.messages[record.messageID] = StoredEnvelope(messageID: record.messageID, timestamp: record.timestamp,
                                                        expiresAt: record.expiresAt, envelope: envelope)
        box.bytes += envelope.count
        box.lastID = max(box.lastID, record.messageID)
        box.deposits[requestID] = record
        mailboxes[mailbox] = box
    }
}
