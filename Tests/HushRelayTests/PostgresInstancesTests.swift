import HushRelay
import HushRelayPostgres
import PostgresTestCluster
import Synchronization
import Testing

/// Two relay instances' storages on one PostgreSQL database, as two
/// `hush relay serve` processes use it.
@Suite struct PostgresInstancesTests {
    static func instances(_ count: Int, label: String) async throws -> [PostgresRelayStorage] {
        let url = try PostgresURL(await PostgresTestCluster.freshDatabase(label))
        var storages: [PostgresRelayStorage] = []
        for index in 0..<count {
            storages.append(try await PostgresRelayStorage(url: url, instance: "i\(index)", maxConnections: 4, logger: OpenedDriver.quietLogger))
        }
        return storages
    }

    /// The client treats every id at or below the highest it has stored as
    /// processed, so within a mailbox no id may appear below one a sync has
    /// already returned, whichever instance stored it and however the two
    /// instances' commits interleave.
    @Test func idsOfOneMailboxBecomeVisibleInIncreasingOrderAcrossInstances() async throws {
        let storages = try await Self.instances(2, label: "order")
        defer { storages.forEach { $0.close() } }
        let mailbox = [UInt8](repeating: 9, count: 32)
        try await storages[0].registerForTest(mailbox)
        let quota = MailboxQuota(maxCount: 10_000, maxBytes: 10_000_000)
        let perInstance = 150
        let done = Atomic(false)
        async let reader: (seen: Int, violations: [UInt64]) = {
            var cursor: UInt64 = 0, seen: Set<UInt64> = [], violations: [UInt64] = []
            // Reads like a client: from the start, and whatever is new at or below the cursor would be skipped.
            while true {
                let finished = done.load(ordering: .acquiring)
                for stored in try await storages[1].messages(mailbox: mailbox, after: 0, limit: 1_000, now: 1) where !seen.contains(stored.messageID) {
                    if stored.messageID <= cursor { violations.append(stored.messageID) }
                    seen.insert(stored.messageID)
                    cursor = max(cursor, stored.messageID)
                }
                if finished { return (seen.count, violations) }
            }
        }()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, storage) in storages.enumerated() {
                for lane in 0..<4 {
                    group.addTask {
                        for number in stride(from: lane, to: perInstance, by: 4) {
                            _ = try await storage.deposit(mailbox: mailbox, requestID: "i\(index)-\(number)", envelope: [UInt8(index), UInt8(number & 255)],
                                                          now: 1_000, expiresAt: 1_000_000, quota: quota)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        done.store(true, ordering: .releasing)
        let (seen, violations) = try await reader
        #expect(violations.isEmpty, "ids that appeared below the reader's cursor: \(violations.prefix(10))")
        #expect(seen == 2 * perInstance)
        // The same request id through the other instance is the same deposit.
        let first = try await storages[0].deposit(mailbox: mailbox, requestID: "i1-0", envelope: [1, 0], now: 2_000, expiresAt: 1_000_000, quota: quota)
        #expect(first == .repeated(first.record))
    }
}
