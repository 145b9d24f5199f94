import Foundation

/// Time as the pipeline sees it. Injected so that tests can drive retries
/// and expiry without sleeping.
public protocol MessengerClock: Sendable {
    /// Milliseconds since the Unix epoch.
    func now() -> Int64
    /// Waits `milliseconds` (or until cancelled).
    func sleep(milliseconds: Int64) async throws
}

/// The wall clock.
public struct SystemClock: MessengerClock {
    public init() {}

    public func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }

    public func sleep(milliseconds: Int64) async throws {
        guard milliseconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(milliseconds) * 1_000_000)
    }
}
