/// Relay message ids: time-ordered and strictly increasing.
///
///     id = max(now_ms << 10, previous + 1)
///
/// so up to 1,024 ids per millisecond follow wall time, bursts borrow from the
/// next millisecond, and a clock stepping back never reuses an id. 2^51 at
/// year 2100 keeps ids exact in JSON doubles. Not thread-safe: the driver
/// calls it under its own lock.
package struct MessageIDClock {
    package static let sequenceBits: UInt64 = 10
    package private(set) var last: UInt64

    package init(last: UInt64 = 0) { self.last = last }

    package mutating func next(nowMilliseconds now: Int64) -> UInt64 {
        let candidate = UInt64(max(0, now)) << MessageIDClock.sequenceBits
        last = max(candidate, last + 1)
        return last
    }
}
