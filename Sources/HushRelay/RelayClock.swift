import Foundation
import Synchronization

/// The relay's notion of now, in Unix milliseconds. Injected so tests can
/// expire tokens and envelopes without waiting.
public protocol RelayClock: Sendable {
    func nowMilliseconds() -> Int64
}

public struct SystemRelayClock: RelayClock {
    public init() {}
    public func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// A clock tests move by hand.
public final class ManualRelayClock: RelayClock {
    private let now: Mutex<Int64>
    public init(start: Int64 = 1_800_000_000_000) { now = Mutex(start) }
    public func nowMilliseconds() -> Int64 { now.withLock { $0 } }
    public func advance(seconds: Int64) { now.withLock { $0 += seconds * 1000 } }
}
