import HushTesting
import Testing
import HushCrypto
@testable import HushMessenger

@Suite struct BackoffPolicyTests {
    let policy = BackoffPolicy(baseMilliseconds: 1_000, capMilliseconds: 30_000, maximumAttempts: 5)

    @Test func ceilingDoublesUpToTheCap() {
        #expect((1...7).map { policy.ceiling(forAttempt: $0) } == [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000])
        #expect(policy.ceiling(forAttempt: 10_000) == 30_000)
    }

    @Test func jitterStaysWithinTheCeilingAndVaries() {
        let random = DeterministicRandom(seed: "backoff")
        let delays = (0..<200).map { _ in policy.delay(forAttempt: 3, using: random) }
        #expect(delays.allSatisfy { (0...4_000).contains($0) })
        #expect(Set(delays).count > 50)
    }

    @Test func decisionsFollowTheStatusRules() {
        let random = DeterministicRandom(seed: "decisions")
        // Re-authenticating once is RelaySession's rule (PipelineTests covers
        // it); a deposit carries no token, so a 401 on one is final.
        if case .giveUp = policy.decision(for: .unauthorized, failures: 1, using: random) {} else {
            Issue.record("a 401 on a deposit must give up")
        }
        if case .giveUp = policy.decision(for: .rejected(status: 422, code: "malformed"), failures: 1, using: random) {} else {
            Issue.record("422 must not be retried")
        }
        guard case let .retry(wait) = policy.decision(for: .rateLimited(retryAfterMilliseconds: 25_000), failures: 1, using: random) else {
            Issue.record("429 must be retried"); return
        }
        #expect(wait >= 25_000)
        if case .giveUp = policy.decision(for: .unavailable(reason: "503"), failures: 5, using: random) {} else {
            Issue.record("must give up after the maximum attempts")
        }
        if case .retry = policy.decision(for: .unavailable(reason: "503"), failures: 4, using: random) {} else {
            Issue.record("must retry below the maximum attempts")
        }
    }

    /// The outbox's policy: a relay that does not answer is tried for a day
    /// however many attempts that takes; a refusal is final at once.
    @Test func theOutboxWaitsADayForARelayThatDoesNotAnswer() {
        let random = DeterministicRandom(seed: "patience")
        let outbox = BackoffPolicy.outbox
        if case .retry = outbox.decision(for: .unavailable(reason: "connection refused"), failures: 30, waited: 3_600_000, using: random) {} else {
            Issue.record("an hour without the relay gave up")
        }
        if case .giveUp = outbox.decision(for: .unavailable(reason: "connection refused"), failures: 30, waited: 86_400_001, using: random) {} else {
            Issue.record("a day without the relay kept trying")
        }
        if case .giveUp = outbox.decision(for: .rejected(status: 422, code: "malformed"), failures: 1, waited: 0, using: random) {} else {
            Issue.record("a refusal was retried")
        }
    }
}
