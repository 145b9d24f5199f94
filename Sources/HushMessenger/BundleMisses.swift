/// Devices the relay had no bundle for, and when it said so.
///
/// A device without a bundle (our first device's own key, which the relay
/// does not know; a contact's device whose registration failed or has not
/// happened yet) is asked for again only once `retryAfter` has passed: not
/// at every pass, where each ask is a request that finds nothing, and not
/// never again in a long run (`hush daemon` keeps one messenger for days),
/// which would leave a device that registers later unreached until a restart.
struct BundleMisses {
    /// Ten minutes, in milliseconds.
    static let retryAfter: Int64 = 10 * 60 * 1_000

    private var missedAt: [[UInt8]: Int64] = [:]

    /// Whether to ask the relay for `device`'s bundle at `now`.
    func shouldAsk(_ device: [UInt8], now: Int64) -> Bool {
        guard let at = missedAt[device] else { return true }
        // A clock set back counts as time passed: asking once too often costs one request.
        return now - at >= Self.retryAfter || now < at
    }

    /// The relay had no bundle for `device` at `now`.
    mutating func missed(_ device: [UInt8], at now: Int64) {
        missedAt[device] = now
    }
}
