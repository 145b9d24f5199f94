import HushCrypto
import Synchronization

/// A `TimeSource` tests move by hand: token, retry and envelope expiry without
/// waiting. Sleeping advances the clock and returns at once, so a retry loop
/// under test runs its whole schedule instantly.
public final class ManualClock: TimeSource {
    private let current: Mutex<Int64>

    public init(start: Int64 = 1_800_000_000_000) { current = Mutex(start) }

    public func now() -> Int64 { current.withLock { $0 } }
    public func advance(milliseconds: Int64) { current.withLock { $0 += milliseconds } }
    public func advance(seconds: Int64) { advance(milliseconds: seconds * 1000) }
    public func sleep(milliseconds: Int64) async throws { advance(milliseconds: max(0, milliseconds)) }
}
