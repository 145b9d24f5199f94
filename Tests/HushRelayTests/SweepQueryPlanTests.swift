import Foundation
import HushCrypto
@testable import HushRelay
import HushTesting
import Testing

/// The expiry sweep runs once a minute in a write transaction under the
/// SQLCipher storage's lock, so every deposit waits for it. A statement of
/// it that walked `messages` or `deposits` stalled the relay for seconds
/// once they held a few hundred thousand rows (issue 35, item 1: wrk
/// timeouts): each must find the expired rows through an expiry index.
@Suite struct SweepQueryPlanTests {
    @Test func theSweepFindsExpiredRowsThroughTheExpiryIndexes() throws {
        let directory = try TemporaryDirectory()
        let key = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "sweep-plan-key"))
        let storage = try SQLCipherRelayStorage(path: directory.path + "/relay.db", key: key)
        let statements = [
            (SQLCipherRelayStorage.expiredUsageSQL, "messages_by_expiry"),
            (SQLCipherRelayStorage.deleteExpiredMessagesSQL, "messages_by_expiry"),
            (SQLCipherRelayStorage.deleteExpiredDepositsSQL, "deposits_by_expiry"),
        ]
        for (sql, index) in statements {
            let steps = try storage.read { db in
                try db.query("EXPLAIN QUERY PLAN " + sql, [Int64(5)]) { row in try row.get(3, as: String.self) }
            }
            #expect(steps.contains { $0.contains(index) }, "\(sql): \(steps)")
            #expect(!steps.contains { $0.hasPrefix("SCAN") }, "\(sql) walks a table: \(steps)")
        }
    }
}
