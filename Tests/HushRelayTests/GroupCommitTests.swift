import Foundation
import HushCrypto
@testable import HushRelay
import HushRelayAPI
import Synchronization
import HushTesting
import Testing

/// Deposits through `submit`, which the SQLCipher driver batches into one
/// transaction per group of concurrent callers.
@Suite struct GroupCommitTests {
    static let quota = MailboxQuota(maxCount: 10_000, maxBytes: 10_000_000)

    /// A SQLCipher storage on a fresh file with `mailboxes` registered identities.
    static func storage(mailboxes: Int) async throws -> (SQLCipherRelayStorage, TemporaryDirectory, [[UInt8]], SecureBytes) {
        let directory = try TemporaryDirectory()
        let key = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "group-commit-key"))
        let storage = try SQLCipherRelayStorage(path: directory.path + "/relay.db", key: key)
        var identities: [[UInt8]] = []
        for index in 0..<mailboxes {
            let user = try TestUser(seed: "group-\(index)")
            _ = try await storage.register(identity: user.identity, signedPrekey: user.signedPrekey, lastResortKEMPrekey: user.lastResortKEM,
                                           oneTimePrekeys: [], registeredAt: 1)
            identities.append(user.identity)
        }
        return (storage, directory, identities, key)
    }

    static func submission(_ mailbox: [UInt8], _ requestID: String, _ envelope: [UInt8],
                           admission: DepositSubmission.Admission = .firstContact(admit: {}),
                           quota: MailboxQuota = GroupCommitTests.quota) -> DepositSubmission {
        DepositSubmission(mailbox: mailbox, requestID: requestID, envelope: envelope, admission: admission,
                          now: 1_000, expiresAt: 1_000_000, quota: quota)
    }

    /// Submits all at once; results in submission order.
    static func submitConcurrently(_ storage: any MailboxStore, _ deposits: [DepositSubmission]) async -> [Result<DepositOutcome, any Error>] {
        await withTaskGroup(of: (Int, Result<DepositOutcome, any Error>).self) { group in
            for (index, deposit) in deposits.enumerated() {
                group.addTask {
                    do { return (index, .success(try await storage.submit(deposit))) } catch { return (index, .failure(error)) }
                }
            }
            var results = [Result<DepositOutcome, any Error>?](repeating: nil, count: deposits.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }

    @Test func concurrentDepositsAreAllCommittedOnceAndIdempotent() async throws {
        let (storage, directory, mailboxes, key) = try await Self.storage(mailboxes: 4)
        let deposits = (0..<400).map { index in
            Self.submission(mailboxes[index % 4], "r\(index)", withUnsafeBytes(of: UInt32(index).bigEndian, Array.init))
        }
        let first = await Self.submitConcurrently(storage, deposits)
        let records = try first.map { result -> DepositRecord in
            guard case let .stored(record, _) = try result.get() else { throw TestFailure("a new request id was not stored") }
            return record
        }
        #expect(Set(records.map(\.messageID)).count == deposits.count)
        // Every caller was answered after its commit: a second connection to the file sees them all.
        let other = try SQLCipherRelayStorage(path: directory.path + "/relay.db", key: key)
        let inventory = try await other.inventory()
        #expect(inventory.messages.count == deposits.count && inventory.depositRecords == deposits.count)
        // Per mailbox, ids increase in the order the messages are listed.
        for mailbox in mailboxes {
            let listed = try await other.messages(mailbox: mailbox, after: 0, limit: 500, now: 2_000).map(\.messageID)
            #expect(listed.count == 100 && listed == listed.sorted())
        }
        // Repeating every request id concurrently stores nothing and answers the first results.
        let again = await Self.submitConcurrently(storage, deposits)
        for (index, result) in again.enumerated() {
            #expect(try result.get() == .repeated(records[index]))
        }
        #expect(try await storage.inventory().messages.count == deposits.count)
    }

    @Test func aRefusedDepositFailsAloneInsideItsBatch() async throws {
        let (storage, _, mailboxes, _) = try await Self.storage(mailboxes: 2)
        let credential = [UInt8](repeating: 9, count: 32)
        _ = try await storage.updateCredentials(mailbox: mailboxes[0], add: [DeliveryCredential.hash(credential)], remove: [])
        _ = try await storage.submit(Self.submission(mailboxes[0], "taken", [1]))
        let stranger = [UInt8](repeating: 0xEE, count: 32)
        let refusals: [(DepositSubmission, RelayError)] = [
            (Self.submission(stranger, "s", [1]), .notFound("mailbox")),
            (Self.submission(mailboxes[0], "bad-credential", [2], admission: .credential(hash: DeliveryCredential.hash([0]))), .invalidCredential),
            (Self.submission(mailboxes[0], "taken", [3]), .conflict("request id already used with a different envelope")),
            (Self.submission(mailboxes[1], "full", [4], quota: MailboxQuota(maxCount: 0, maxBytes: 100)), .quotaExceeded),
            (Self.submission(mailboxes[1], "limited", [5], admission: .firstContact(admit: { throw RelayError.rateLimited(retryAfterSeconds: 7) })),
             .rateLimited(retryAfterSeconds: 7)),
        ]
        let accepted = (0..<40).map { index in
            Self.submission(mailboxes[index % 2], "ok-\(index)", [UInt8(index)],
                            admission: index % 2 == 0 ? .credential(hash: DeliveryCredential.hash(credential)) : .firstContact(admit: {}))
        }
        // Interleaved so that refusals and accepted deposits share batches.
        var mixed: [DepositSubmission] = []
        var expectedRefusal: [Int: RelayError] = [:]
        for (index, deposit) in accepted.enumerated() {
            mixed.append(deposit)
            if index % 8 == 0, index / 8 < refusals.count {
                expectedRefusal[mixed.count] = refusals[index / 8].1
                mixed.append(refusals[index / 8].0)
            }
        }
        #expect(expectedRefusal.count == refusals.count)
        let results = await Self.submitConcurrently(storage, mixed)
        for (index, result) in results.enumerated() {
            if let refusal = expectedRefusal[index] {
                #expect(throws: refusal) { try result.get() }
            } else {
                guard case .stored = try result.get() else { throw TestFailure("an accepted deposit was not stored") }
            }
        }
        #expect(try await storage.inventory().messages.count == accepted.count + 1)
    }

    @Test func aFailedCommitFailsEveryCallerOfItsBatchAndTheNextBatchRuns() async throws {
        let gate = DispatchSemaphore(value: 0)
        let batches = Mutex<[[Int]]>([])
        let queue = GroupCommitQueue<Int, Int>(label: "test", maxBatch: 100) { batch in
            let number = batches.withLock { $0.append(batch); return $0.count }
            if number == 1 { gate.wait() }
            if number == 2 { return batch.map { _ in .failure(RelayError.internalFailure("disk")) } }
            return batch.map { .success($0 * 10) }
        }
        async let first = queue.submit(0)
        // The first batch holds the writer; everything submitted meanwhile forms the second batch.
        while batches.withLock({ $0.count }) < 1 { await Task.yield() }
        let failing = (1...5).map { value in Task { try await queue.submit(value) } }
        while queue.waitingCount < failing.count { await Task.yield() }
        gate.signal()
        #expect(try await first == 0)
        for task in failing {
            await #expect(throws: RelayError.internalFailure("disk")) { try await task.value }
        }
        #expect(try await queue.submit(7) == 70)
        let seen = batches.withLock { $0 }
        #expect(seen.count == 3 && seen[0] == [0] && Set(seen[1]) == Set(1...5) && seen[2] == [7])
    }
}
