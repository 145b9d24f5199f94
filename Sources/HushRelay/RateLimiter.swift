import Foundation
import Synchronization

/// Token-bucket rate limiting keyed by a string (an IP address, an identity,
/// a mailbox). The table is bounded: when full, buckets that have refilled
/// are dropped first, so an attacker rotating keys cannot grow memory.
public final class RateLimiter: Sendable {
    public struct Rule: Sendable {
        public var burst: Double
        public var perSecond: Double
        public init(burst: Double, perSecond: Double) {
            self.burst = burst
            self.perSecond = perSecond
        }
    }

    struct Bucket {
        var tokens: Double
        var updated: Int64
    }

    public static let maxKeys = 100_000

    private let rule: Rule
    private let buckets = Mutex<[String: Bucket]>([:])

    public init(rule: Rule) { self.rule = rule }

    /// Takes one token for `key`: nil when allowed, else the seconds to wait.
    public func acquire(_ key: String, nowMilliseconds now: Int64) -> Int? {
        acquire(key, cost: 1, nowMilliseconds: now)
    }

    /// Takes `cost` tokens for `key` at once (a request that does the work of
    /// several): nil when allowed, else the seconds until that many are there.
    /// A refused request takes nothing. A cost above the burst is charged as the burst.
    public func acquire(_ key: String, cost: Int, nowMilliseconds now: Int64) -> Int? {
        let cost = min(Double(max(cost, 1)), max(rule.burst, 1))
        return buckets.withLock { table in
            var bucket = table[key] ?? Bucket(tokens: rule.burst, updated: now)
            let elapsed = Double(max(0, now - bucket.updated)) / 1000
            bucket.tokens = min(rule.burst, bucket.tokens + elapsed * rule.perSecond)
            bucket.updated = now
            if bucket.tokens >= cost {
                bucket.tokens -= cost
                if table[key] == nil && table.count >= RateLimiter.maxKeys { evict(&table, now: now) }
                table[key] = bucket
                return nil
            }
            table[key] = bucket
            let wait = (cost - bucket.tokens) / max(rule.perSecond, 1e-9)
            return Int(min(wait.rounded(.up), 86_400))
        }
    }

    /// Gives back `cost` tokens taken for `key` but not used (an upload
    /// charged for its declared size that ended shorter), up to the burst.
    public func refund(_ key: String, cost: Int, nowMilliseconds now: Int64) {
        guard cost > 0 else { return }
        buckets.withLock { table in
            guard var bucket = table[key] else { return }
            let elapsed = Double(max(0, now - bucket.updated)) / 1000
            bucket.tokens = min(rule.burst, bucket.tokens + elapsed * rule.perSecond + Double(cost))
            bucket.updated = now
            table[key] = bucket
        }
    }

    /// Drops buckets that are full again (they behave as absent ones), else the oldest half.
    private func evict(_ table: inout [String: Bucket], now: Int64) {
        let full = table.filter { _, bucket in
            bucket.tokens + Double(now - bucket.updated) / 1000 * rule.perSecond >= rule.burst
        }
        for key in full.keys { table.removeValue(forKey: key) }
        if table.count >= RateLimiter.maxKeys {
            let oldest = table.sorted { $0.value.updated < $1.value.updated }.prefix(table.count / 2)
            for (key, _) in oldest { table.removeValue(forKey: key) }
        }
    }
}
