import Foundation
import Synchronization
import Testing
@testable import hush

/// A daemon method's progress notifications (`fetch.progress`) all go before
/// its answer: when the operation fails too, and however slowly each one is
/// sent; a step reported after the operation ended is dropped.
@Suite struct ProgressForwardingTests {
    struct Failure: Error {}

    /// The steps forwarded, each slowly, as a notification written to a busy socket is.
    final class Forwarded: Sendable {
        private let steps = Mutex<[Int]>([])
        var all: [Int] { steps.withLock { $0 } }

        func forward(_ step: Int) async {
            try? await Task.sleep(for: .milliseconds(2))
            steps.withLock { $0.append(step) }
        }
    }

    @Test func everyStepIsForwardedBeforeAnError() async {
        let forwarded = Forwarded()
        await #expect(throws: Failure.self) {
            try await ProgressForwarding.run(forward: forwarded.forward) { report in
                for step in 0..<50 { report(step) }
                throw Failure()
            }
        }
        #expect(forwarded.all == Array(0..<50))
    }

    @Test func everyStepIsForwardedBeforeTheResultAndNoneAfter() async throws {
        let forwarded = Forwarded()
        let kept = Mutex<(@Sendable (Int) -> Void)?>(nil)
        let value = try await ProgressForwarding.run(forward: forwarded.forward) { report in
            kept.withLock { $0 = report }
            for step in 0..<50 { report(step) }
            return "done"
        }
        #expect(value == "done")
        #expect(forwarded.all == Array(0..<50))
        kept.withLock { $0 }?(50)
        try await Task.sleep(for: .milliseconds(50))
        #expect(forwarded.all.count == 50, "a step after the answer went out")
    }
}
