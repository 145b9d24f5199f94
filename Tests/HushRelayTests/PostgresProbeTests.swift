import Foundation
@testable import HushRelayPostgres
import HushTesting
import Testing

/// The deposit feed's probe of its PostgreSQL connection: a query that never
/// answers (PostgresNIO's does not follow task cancellation) is given up on
/// at the probe's limit, by closing what it waits on, instead of holding the
/// feed until TCP gives up.
@Suite struct PostgresProbeTests {
    @Test func aQueryThatNeverAnswersIsGivenUpOnAtTheLimitByClosingItsConnection() async throws {
        let connection = Gate(), watchdogFired = Gate()
        // A watchdog instead of a hang: were the connection never closed, the
        // query would wait for it (a task group waits for its children).
        let watchdog = Task.detached {
            try? await Task.sleep(for: .seconds(60))
            watchdogFired.open()
            connection.open()
        }
        defer { watchdog.cancel() }
        let answered = try await PostgresDepositFeed.answers(within: .milliseconds(200)) {
            await connection.wait()
        } otherwise: {
            connection.open()
        }
        #expect(!answered)
        #expect(!watchdogFired.isOpen, "the silent query was not given up on: only the watchdog ended it")
    }

    @Test func aQueryThatAnswersInTimeLeavesTheConnectionOpen() async throws {
        let closed = Gate()
        let answered = try await PostgresDepositFeed.answers(within: .seconds(120)) {} otherwise: { closed.open() }
        #expect(answered)
        #expect(!closed.isOpen)
    }

    @Test func aQueryThatFailsFailsTheProbe() async {
        struct ConnectionLost: Error {}
        await #expect(throws: ConnectionLost.self) {
            try await PostgresDepositFeed.answers(within: .seconds(120)) { throw ConnectionLost() } otherwise: {}
        }
    }
}
