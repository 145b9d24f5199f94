import HushCrypto

/// The one place that decides whether a deposit is stored. Every driver runs
/// it over its own `DepositLedger`, so the order of the checks exists once:
///
/// 1. the mailbox is registered (404 `.notFound`);
/// 2. a presented credential is registered for it (403 `.invalidCredential`);
/// 3. a repeated request id returns the earlier result (the same 201), or
///    409 `.conflict` when the envelope differs;
/// 4. a new first contact is admitted (whatever `admit` throws: 428, 429);
/// 5. the quota holds (413 `.quotaExceeded`);
/// 6. the envelope gets the next message id and is stored.
///
/// Every refusal is thrown before the first write, so a refused deposit
/// leaves nothing behind, even inside a batch.
public enum DepositPolicy {
    /// Checks and stores one deposit. `digest` is the envelope's SHA-256
    /// (computed by the caller, outside the driver's lock).
    public static func apply(_ deposit: DepositSubmission, digest: [UInt8], to ledger: inout some DepositLedger) throws -> DepositOutcome {
        let mailbox = deposit.mailbox
        guard try ledger.isRegistered(mailbox: mailbox) else { throw RelayError.notFound("mailbox") }
        if case let .credential(hash) = deposit.admission {
            guard try ledger.hasCredential(mailbox: mailbox, hash: hash) else { throw RelayError.invalidCredential }
        }
        if let earlier = try ledger.earlierDeposit(mailbox: mailbox, requestID: deposit.requestID) {
            guard ConstantTime.equals(earlier.envelopeDigest, digest) else {
                throw RelayError.conflict("request id already used with a different envelope")
            }
            return .repeated(earlier)
        }
        if case let .firstContact(admit) = deposit.admission { try admit() }
        let usage = try ledger.usage(mailbox: mailbox)
        guard usage.count < deposit.quota.maxCount, deposit.envelope.count <= deposit.quota.maxBytes - usage.bytes else {
            throw RelayError.quotaExceeded
        }
        let (id, previous) = try ledger.nextMessageID(mailbox: mailbox, now: deposit.now)
        let record = DepositRecord(messageID: id, timestamp: deposit.now, expiresAt: deposit.expiresAt, envelopeDigest: digest)
        try ledger.store(mailbox: mailbox, requestID: deposit.requestID, envelope: deposit.envelope, record: record)
        return .stored(record, previousMessageID: previous)
    }

    /// A batch over one ledger (one transaction): a deposit the policy refuses
    /// fails alone; any other error (the database's) is thrown, so that the
    /// driver rolls the whole transaction back and fails every deposit of it:
    /// no answer ever claims a deposit that is not committed.
    public static func applyBatch(_ deposits: [(submission: DepositSubmission, digest: [UInt8])],
                                  to ledger: inout some DepositLedger) throws -> [Result<DepositOutcome, any Error>] {
        var results: [Result<DepositOutcome, any Error>] = []
        results.reserveCapacity(deposits.count)
        for deposit in deposits {
            do {
                results.append(.success(try apply(deposit.submission, digest: deposit.digest, to: &ledger)))
            } catch let refusal as RelayError {
                results.append(.failure(refusal))
            }
        }
        return results
    }
}
