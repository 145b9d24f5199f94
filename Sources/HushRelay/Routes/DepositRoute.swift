import HushCrypto
import HushRelayAPI
import Hummingbird

/// `POST /v1/mailboxes/{identity}/messages`: anyone may deposit (sealed
/// sender), with a delivery credential or as a rate-limited first contact.
/// Every check after parsing runs inside the storage's atomic deposit step
/// (one batched transaction on SQLCipher), in this order: mailbox registered
/// (404), credential (403), repeat of a request id (same 201, or 409), first-
/// contact limits (429), quota (413).
enum DepositRoute {
    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.post("/v1/mailboxes/{identity}/messages") { request, context in
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let mailbox = try core.identity(fromPath: context)
            let body = try await DepositBody.read(request)
            let now = core.now
            let outcome = try await core.storage.mailboxes.submit(DepositSubmission(
                mailbox: mailbox, requestID: body.requestID, envelope: body.envelope,
                admission: admission(body, mailbox: mailbox, address: context.remoteAddress, core: core),
                now: now, expiresAt: now + core.configuration.retentionSeconds * 1000,
                quota: MailboxQuota(maxCount: core.configuration.mailboxQuotaCount, maxBytes: core.configuration.mailboxQuotaBytes)))
            stored(outcome, envelope: body.envelope, mailbox: mailbox, core: core)
            return depositResponse(messageID: outcome.record.messageID, timestamp: outcome.record.timestamp)
        }
    }

    /// A credential must be registered for the mailbox (a wrong-length one can
    /// never be, so it is compared as an impossible hash); without one the
    /// deposit is a first contact: it must carry proof of work of the mailbox's
    /// current difficulty (428 otherwise, checked before anything is stored, so
    /// a flood without work never reaches the recipient) and pass the bucket
    /// of its source address and mailbox, and the per-address one (ten times
    /// as large). The storage consults this only for a new request id.
    /// There is no per-mailbox refusal any more: five anonymous deposits used
    /// to lock every newcomer out of a mailbox for ten minutes.
    static func admission(_ body: DepositBody, mailbox: [UInt8], address: String, core: RelayCore) -> DepositSubmission.Admission {
        admission(credential: body.credential, work: body.work, requestID: body.requestID, envelope: body.envelope, envelopeDigest: nil,
                  mailbox: mailbox, address: address, core: core)
    }

    /// The same for one recipient of a fan-out; `envelopeDigest`, when given,
    /// spares hashing the shared envelope again for every first contact.
    static func admission(credential: [UInt8]?, work: [UInt8]?, requestID: String, envelope: [UInt8], envelopeDigest: [UInt8]?,
                          mailbox: [UInt8], address: String, core: RelayCore) -> DepositSubmission.Admission {
        if let credential {
            return .credential(hash: credential.count == RelayLimits.credentialLength ? DeliveryCredential.hash(credential) : [])
        }
        return .firstContact {
            let key = Hex.encode(mailbox)
            let bits = core.firstContactDifficulty.bits(for: key, now: core.now)
            if bits > 0 {
                let prefix = envelopeDigest.map { FirstContactWork.prefix(mailbox: mailbox, requestID: requestID, envelopeDigest: $0) }
                    ?? FirstContactWork.prefix(mailbox: mailbox, requestID: requestID, envelope: envelope)
                guard let nonce = work, FirstContactWork.isValid(nonce: nonce, prefix: prefix, bits: bits) else {
                    throw RelayError.workRequired(bits: bits)
                }
            }
            // Per source address and target mailbox, so that people behind one
            // shared address (a household, carrier-grade NAT) writing to
            // different people do not share a bucket; the looser per-address
            // bucket still bounds one address writing to many.
            try core.limit(core.limits.firstContactPerAddress, address + " " + key)
            try core.limit(core.limits.firstContactPerAddressTotal, address)
            core.firstContactDifficulty.record(key, now: core.now)
        }
    }

    /// After the commit of a deposit (single or one recipient of a fan-out):
    /// a newly stored envelope is pushed to the mailbox's sockets (a pushed
    /// envelope is always also in the mailbox; the frame is encoded only when
    /// the recipient has a socket open) and counted. A repeat does neither.
    static func stored(_ outcome: DepositOutcome, envelope: [UInt8], mailbox: [UInt8], core: RelayCore) {
        guard case let .stored(record, previous) = outcome else { return }
        let pushed = core.hub.send(to: mailbox) {
            SocketFrames.message(messageID: record.messageID, timestamp: record.timestamp, expiresAt: record.expiresAt,
                                 envelope: envelope, previousMessageID: previous)
        }
        core.metrics.deposits.increment()
        core.metrics.depositBytes.increment(by: Int64(envelope.count))
        core.metrics.pushes.increment(by: Int64(pushed))
        core.logger.debug("envelope deposited", metadata: ["size": "\(envelope.count)", "messageID": "\(record.messageID)"])
    }

    /// `{"messageID":…,"timestamp":…}`: two integers, written directly.
    static func depositResponse(messageID: UInt64, timestamp: Int64) -> Response {
        Response(status: .created, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: "{\"messageID\":\(messageID),\"timestamp\":\(timestamp)}")))
    }
}
