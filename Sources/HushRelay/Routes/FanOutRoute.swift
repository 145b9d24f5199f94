import Foundation
import HushCrypto
import HushRelayAPI
import Hummingbird

/// `POST /v1/fanout`: one sealed envelope for several mailboxes (a group
/// message encrypted once). No login, as a single deposit (sealed sender).
///
/// The request is refused as a whole only for what concerns all of it: the
/// per-address rate limit (429), the body (413 over its cap, 422 malformed:
/// bad request id, envelope out of bounds, no recipient, more than
/// `RelayLimits.maxFanOutRecipients`, a mailbox that is not an identity key
/// or appears twice; 400 `digest_mismatch`), and the storage failing (5xx,
/// nothing stored). Otherwise it is 200 with one result per recipient: each
/// recipient is checked by `DepositPolicy` exactly as a single deposit to
/// its mailbox (404, 403, repeat 201 / 409, 428, 429, 413), a refused one
/// fails alone, and every admitted one is stored in ONE transaction.
enum FanOutRoute {
    static let digestField = HTTPFields.Element.Name(EnvelopeDigest.header)!

    /// Tokens of the per-address bucket a fan-out to `recipients` mailboxes
    /// takes: one per ten recipients, at least one (documented in RELAY-API.md).
    static func rateLimitCost(recipients: Int) -> Int {
        max(1, (recipients + 9) / 10)
    }

    static func add(to router: Router<RelayRequestContext>, core: RelayCore) {
        router.post(RouterPath(RelayPaths.fanOut)) { request, context in
            // One token before the body is read, as every request; the rest of
            // the charge once the number of recipients is known.
            try core.limit(core.limits.perAddress, context.remoteAddress)
            let body = try await read(request)
            let extra = rateLimitCost(recipients: body.recipients.count) - 1
            if extra > 0 { try core.limit(core.limits.perAddress, context.remoteAddress, cost: extra) }

            let envelope = body.envelope.bytes
            let envelopeDigest = EnvelopeDigest.of(envelope)
            let now = core.now
            let expiresAt = now + core.configuration.retentionSeconds * 1000
            let quota = MailboxQuota(maxCount: core.configuration.mailboxQuotaCount, maxBytes: core.configuration.mailboxQuotaBytes)
            let submissions = body.recipients.map { recipient in
                DepositSubmission(
                    mailbox: recipient.mailbox.bytes, requestID: body.requestID, envelope: envelope,
                    admission: DepositRoute.admission(credential: recipient.credential?.bytes, work: recipient.work?.bytes,
                                                      requestID: body.requestID, envelope: envelope, envelopeDigest: envelopeDigest,
                                                      mailbox: recipient.mailbox.bytes, address: context.remoteAddress, core: core),
                    now: now, expiresAt: expiresAt, quota: quota)
            }
            let outcomes = try await core.storage.mailboxes.submitFanOut(submissions)
            guard outcomes.count == submissions.count else { throw RelayError.internalFailure("the fan-out lost a result") }
            core.metrics.fanOuts.increment()
            core.metrics.fanOutRecipients.increment(by: Int64(submissions.count))
            var results: [FanOutRecipientResult] = []
            results.reserveCapacity(outcomes.count)
            for (submission, outcome) in zip(submissions, outcomes) {
                switch outcome {
                case let .success(outcome):
                    // After the commit, as a single deposit: push and count the newly stored.
                    DepositRoute.stored(outcome, envelope: envelope, mailbox: submission.mailbox, core: core)
                    results.append(.stored(messageID: outcome.record.messageID, timestamp: outcome.record.timestamp))
                case let .failure(error):
                    let refusal = error as? RelayError ?? .internalFailure("a fan-out recipient failed")
                    if case .internalFailure = refusal {
                        core.logger.error("fan-out recipient failed", metadata: ["error": "\(String(describing: type(of: error)))"])
                    }
                    core.metrics.refused(status: Int(refusal.status.code), reason: refusal.code.rawValue)
                    results.append(result(for: refusal))
                }
            }
            return try JSONBody.response(FanOutResponse(results: results))
        }
    }

    /// Reads and checks the body (`FanOutRequest.check`), and the optional
    /// `Hush-Envelope-SHA256` header as a binary deposit's.
    static func read(_ request: Request) async throws -> FanOutRequest {
        let body = try await JSONBody.decode(FanOutRequest.self, from: request, limit: RelayLimits.maxFanOutBodyBytes)
        do { try body.check() } catch { throw RelayError(error) }
        if let text = request.headers[digestField] {
            guard text.utf8.count <= 64, let digest = Data(base64Encoded: text), digest.count == EnvelopeDigest.length else {
                throw RelayError.malformed("\(EnvelopeDigest.header) is a 32-byte SHA-256 in base64")
            }
            guard EnvelopeDigest.matches(Array(digest), body.envelope.bytes) else { throw RelayError.digestMismatch }
        }
        return body
    }

    /// What a single deposit would have answered, as one recipient's result.
    static func result(for refusal: RelayError) -> FanOutRecipientResult {
        var result = FanOutRecipientResult(status: Int(refusal.status.code), error: refusal.code.rawValue, message: refusal.clientMessage)
        switch refusal {
        case let .workRequired(bits): result.workBits = bits
        case let .rateLimited(seconds): result.retryAfter = max(1, seconds)
        default: break
        }
        return result
    }
}
