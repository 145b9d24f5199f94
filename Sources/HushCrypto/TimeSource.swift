/// Where "now" comes from, for the messenger, the relay, the relay client and
/// the CLI alike: one notion of time, in Unix milliseconds. Injected, like
/// `RandomSource`, so tests can expire tokens, retries and envelopes by moving
/// HushTesting's `ManualClock` instead of waiting. It lives in HushCrypto only
/// because that is the lowest module every one of them already imports.
public protocol TimeSource: Sendable {
    /// Milliseconds since 1970-01-01 UTC.
    func now() -> Int64
    /// Waits `milliseconds` (or until cancelled); a manual clock advances instead.
    func sleep(milliseconds: Int64) async throws
}
