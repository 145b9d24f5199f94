import HushDatabase

/// `DepositLedger` over an open SQLCipher transaction. Message ids come from
/// the storage's one clock (a single writer, so ids are in commit order).
struct SQLCipherDepositLedger: DepositLedger {
    let db: Database
    var ids: MessageIDClock

    func isRegistered(mailbox: [UInt8]) throws -> Bool {
        try db.queryFirst("SELECT 1 FROM identities WHERE identity = ?", [mailbox]) { _ in true } ?? false
    }

    func hasCredential(mailbox: [UInt8], hash: [UInt8]) throws -> Bool {
        try db.queryFirst("SELECT 1 FROM credentials WHERE mailbox = ? AND credential_hash = ?", [mailbox, hash]) { _ in true } ?? false
    }

    func earlierDeposit(mailbox: [UInt8], requestID: String) throws -> DepositRecord? {
        try db.queryFirst("SELECT message_id, created_at, expires_at, envelope_digest FROM deposits WHERE mailbox = ? AND request_id = ?",
                          [mailbox, requestID]) { row in
            DepositRecord(messageID: UInt64(try row.get(0, as: Int64.self)), timestamp: try row.get(1, as: Int64.self),
                          expiresAt: try row.get(2, as: Int64.self), envelopeDigest: try row.get(3, as: [UInt8].self))
        }
    }

    func usage(mailbox: [UInt8]) throws -> MailboxUsage {
        try db.queryFirst("SELECT count, bytes FROM mailbox_usage WHERE mailbox = ?", [mailbox]) { row in
            MailboxUsage(count: try row.get(0, as: Int.self), bytes: try row.get(1, as: Int.self))
        } ?? MailboxUsage(count: 0, bytes: 0)
    }

    /// `previous` is the highest id the mailbox holds (one seek in
    /// `messages_by_mailbox`, on the page this deposit writes anyway).
    mutating func nextMessageID(mailbox: [UInt8], now: Int64) throws -> (id: UInt64, previous: UInt64) {
        let previous = try db.queryFirst("SELECT max(id) FROM messages WHERE mailbox = ?", [mailbox]) { row in
            try row.get(0, as: Int64?.self)
        } ?? nil
        return (ids.next(nowMilliseconds: now), UInt64(max(0, previous ?? 0)))
    }

    func store(mailbox: [UInt8], requestID: String, envelope: [UInt8], record: DepositRecord) throws {
        try db.execute("INSERT INTO messages (id, mailbox, created_at, expires_at, size, envelope) VALUES (?, ?, ?, ?, ?, ?)",
                       [Int64(record.messageID), mailbox, record.timestamp, record.expiresAt, envelope.count, envelope])
        // (No UPSERT: Debian's SQLCipher build does not parse ON CONFLICT … DO UPDATE.)
        try db.execute("UPDATE mailbox_usage SET count = count + 1, bytes = bytes + ? WHERE mailbox = ?", [envelope.count, mailbox])
        if db.changes == 0 {
            try db.execute("INSERT INTO mailbox_usage (mailbox, count, bytes) VALUES (?, 1, ?)", [mailbox, envelope.count])
        }
        try db.execute("INSERT INTO deposits (mailbox, request_id, envelope_digest, message_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
                       [mailbox, requestID, record.envelopeDigest, Int64(record.messageID), record.timestamp, record.expiresAt])
    }
}
