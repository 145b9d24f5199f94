import HushCrypto

/// Exponential backoff with full jitter, capped, with a maximum number of
/// attempts (the design brief's outbox rule). "Full jitter" draws the delay
/// uniformly from [0, min(cap, base × 2^attempt)], which spreads the retries
/// of many clients after a relay outage instead of synchronising them.
public struct BackoffPolicy: Sendable, Equatable {
    public let baseMilliseconds: Int64
    public let capMilliseconds: Int64
    /// Attempts after which a message is marked failed.
    public let maximumAttempts: Int
    /// How long a request the relay could not take for a cause that passes
    /// (no answer, 5xx) is tried at least, however many attempts that takes:
    /// the attempts alone spend about two minutes (full jitter), and a
    /// laptop offline for an afternoon, or a relay restarted after a crash,
    /// must not fail every message written meanwhile and let later ones
    /// overtake them (a walkthrough). 0: the attempts alone decide.
    public let patienceMilliseconds: Int64

    public init(baseMilliseconds: Int64, capMilliseconds: Int64, maximumAttempts: Int, patienceMilliseconds: Int64 = 0) {
        precondition(baseMilliseconds > 0 && capMilliseconds >= baseMilliseconds && maximumAttempts > 0 && patienceMilliseconds >= 0)
        self.baseMilliseconds = baseMilliseconds
        self.capMilliseconds = capMilliseconds
        self.maximumAttempts = maximumAttempts
        self.patienceMilliseconds = patienceMilliseconds
    }

    /// Outbox sends: 1 s doubling to 5 min; given up after 8 attempts, and,
    /// while the relay does not answer (or answers 5xx), not before a day.
    public static let outbox = BackoffPolicy(baseMilliseconds: 1_000, capMilliseconds: 300_000, maximumAttempts: 8,
                                             patienceMilliseconds: 86_400_000)
    /// Uploading an attachment the relay could not take now (down, slow, rate
    /// limiting): 1 s doubling to 5 min, forever (the user sent the file; it
    /// fails only when the relay refuses it, or by `hush retry`'s hand).
    public static let upload = BackoffPolicy(baseMilliseconds: 1_000, capMilliseconds: 300_000, maximumAttempts: .max)
    /// Reconnecting the live connection: 500 ms doubling to the brief's 30 s cap, forever.
    public static let reconnect = BackoffPolicy(baseMilliseconds: 500, capMilliseconds: 30_000, maximumAttempts: .max)

    /// The ceiling of the delay before retry number `attempt` (1 = first retry).
    public func ceiling(forAttempt attempt: Int) -> Int64 {
        let exponent = min(max(attempt - 1, 0), 40)
        let raw = baseMilliseconds.multipliedReportingOverflow(by: Int64(1) << exponent)
        return raw.overflow ? capMilliseconds : min(capMilliseconds, raw.partialValue)
    }

    /// The jittered delay before retry number `attempt`.
    public func delay(forAttempt attempt: Int, using random: any RandomSource = SystemRandom()) -> Int64 {
        let ceiling = ceiling(forAttempt: attempt)
        let draw = random.uniform(UInt32(clamping: ceiling + 1))
        return Int64(draw)
    }

    /// Whether another attempt is allowed after `failures` failures.
    public func allowsAnotherAttempt(after failures: Int) -> Bool {
        failures < maximumAttempts
    }
}
