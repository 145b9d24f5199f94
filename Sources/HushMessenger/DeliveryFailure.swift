import HushCrypto

/// How an attempt to reach the relay failed, reduced to what the outbox must
/// decide. The relay client maps its own errors (HTTP status, network) into these.
public enum DeliveryFailure: Error, Sendable, Equatable {
    /// 401: the token expired or was revoked. `RelaySession` re-authenticates
    /// once and retries; anywhere else it is final.
    case unauthorized
    /// The relay refused the login itself (a signature for another relay's
    /// origin, an unknown identity key format): final, with the relay's reason.
    case loginRefused(reason: String)
    /// 422 and other client errors the relay will refuse again: never retried.
    case rejected(status: Int, code: String)
    /// 413: the envelope is over the relay's size limit: never retried.
    case tooLarge
    /// 429: back off for at least the relay's Retry-After.
    case rateLimited(retryAfterMilliseconds: Int64?)
    /// 5xx, connection refused, timeout: retry with backoff.
    case unavailable(reason: String)
}

extension DeliveryFailure {
    /// The relay answered and said no (as opposed to not answering at all).
    public var isRefusal: Bool {
        if case .unavailable = self { return false }
        return true
    }

    /// 403 on a deposit: the relay does not know the delivery credential presented.
    public var refusesCredential: Bool {
        if case .rejected(403, _) = self { return true }
        return false
    }
}

/// What the outbox does next after a failure.
public enum RetryDecision: Sendable, Equatable {
    case retry(afterMilliseconds: Int64)
    case giveUp(reason: String)
}

extension BackoffPolicy {
    /// The decision for the `failures`-th consecutive failure (1-based) of
    /// one outbox request. Deposits carry no session token, so logging in
    /// cannot fix a 401 on one: it is final here (re-authenticating is
    /// `RelaySession`'s rule, for the calls that carry a token).
    /// `waited`: since the request was queued; a relay that cannot take it
    /// now is tried for `patienceMilliseconds` at least.
    public func decision(for failure: DeliveryFailure, failures: Int, waited: Int64 = .max, using random: any RandomSource) -> RetryDecision {
        switch failure {
        case let .loginRefused(reason):
            return .giveUp(reason: "the relay refused the login: \(reason)")
        case .unauthorized:
            return .giveUp(reason: "the relay refused our credentials after re-authenticating; the next sync registers again")
        case let .rejected(status, code):
            return .giveUp(reason: "the relay rejected the message (HTTP \(status), \(code)); it will not be retried")
        case .tooLarge:
            return .giveUp(reason: "the message is larger than the relay accepts")
        case let .rateLimited(retryAfter):
            guard allowsAnotherAttempt(after: failures) else { return .giveUp(reason: "the relay kept rate-limiting us") }
            return .retry(afterMilliseconds: max(retryAfter ?? 0, delay(forAttempt: failures, using: random)))
        case let .unavailable(reason):
            guard allowsAnotherAttempt(after: failures) || waited < patienceMilliseconds else {
                return .giveUp(reason: "the relay could not be reached after \(failures) attempts (\(reason))")
            }
            return .retry(afterMilliseconds: delay(forAttempt: failures, using: random))
        }
    }
}
