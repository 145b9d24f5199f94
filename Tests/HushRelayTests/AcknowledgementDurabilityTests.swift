import Foundation
@testable import HushRelay
import HushRelayAPI
import Testing

/// What the SQLCipher driver waits for the disk for: a deposit, before its
/// 201 (the relay must not answer for what it did not store), and not an
/// acknowledgement, whose deletion a power loss may undo with no harm (the
/// envelope is delivered again and the client acknowledges it as already processed).
@Suite struct AcknowledgementDurabilityTests {
    @Test func depositsAreSyncedAndAcknowledgementsAreNot() async throws {
        let (storage, directory, mailboxes, _) = try await GroupCommitTests.storage(mailboxes: 1)
        defer { _ = directory }
        let before = storage.deferredCommits
        guard case let .stored(record, _) = try await storage.submit(GroupCommitTests.submission(mailboxes[0], "r1", [1, 2, 3])) else {
            throw TestFailure("the deposit was not stored")
        }
        #expect(storage.deferredCommits == before, "a deposit's commit must wait for the disk")

        #expect(try await storage.acknowledge(mailbox: mailboxes[0], messageIDs: [record.messageID]) == 1)
        #expect(storage.deferredCommits == before + 1, "an acknowledgement's commit need not wait for the disk")
        #expect(try await storage.messages(mailbox: mailboxes[0], after: 0, limit: 10, now: 1_000).isEmpty)

        _ = try await storage.submit(GroupCommitTests.submission(mailboxes[0], "r2", [4, 5, 6]))
        #expect(storage.deferredCommits == before + 1)
    }
}
