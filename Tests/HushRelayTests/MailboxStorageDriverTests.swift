import HushCrypto
import HushRelay
import Testing

/// The same contract, run against both drivers.
@Suite struct MailboxStorageDriverTests {
    enum Driver: String, CaseIterable, CustomTestStringConvertible {
        case memory, sqlcipher
        var testDescription: String { rawValue }
    }

    final class Opened: @unchecked Sendable {
        let storage: any MailboxStorage
        let directory: TemporaryDirectory
        init(_ driver: Driver) throws {
            directory = try TemporaryDirectory()
            switch driver {
            case .memory: storage = InMemoryMailboxStorage()
            case .sqlcipher:
                storage = try SQLCipherMailboxStorage(path: directory.path + "/relay.db", key: SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "key")))
            }
        }
    }

    static let quota = MailboxQuota(maxCount: 100, maxBytes: 10_000)

    @Test(arguments: Driver.allCases)
    func messageIDsIncreaseEvenWhenTheClockStepsBack(driver: Driver) async throws {
        let opened = try Opened(driver)
        let mailbox = [UInt8](repeating: 1, count: 32)
        var ids: [UInt64] = []
        for (index, now) in [Int64(5_000), 5_000, 4_000, 6_000].enumerated() {
            let outcome = try await opened.storage.deposit(mailbox: mailbox, requestID: "r\(index)", envelope: [UInt8(index)], now: now,
                                                           expiresAt: now + 1_000_000, quota: Self.quota)
            ids.append(outcome.record.messageID)
        }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        #expect(ids[0] >> 10 == 5_000)
    }

    @Test(arguments: Driver.allCases)
    func challengesAreSingleUse(driver: Driver) async throws {
        let opened = try Opened(driver)
        let identity = [UInt8](repeating: 2, count: 32), nonce = [UInt8](repeating: 3, count: 32)
        try await opened.storage.storeChallenge(nonce: nonce, identity: identity, expiresAt: 10_000)
        #expect(try await opened.storage.consumeChallenge(nonce: nonce, identity: identity, now: 1_000))
        #expect(try await !opened.storage.consumeChallenge(nonce: nonce, identity: identity, now: 1_000))
    }

    @Test(arguments: Driver.allCases)
    func ackOnlyDeletesOwnMailbox(driver: Driver) async throws {
        let opened = try Opened(driver)
        let alice = [UInt8](repeating: 4, count: 32), bob = [UInt8](repeating: 5, count: 32)
        let id = try await opened.storage.deposit(mailbox: alice, requestID: "a", envelope: [1], now: 1, expiresAt: 100, quota: Self.quota).record.messageID
        #expect(try await opened.storage.acknowledge(mailbox: bob, messageIDs: [id]) == 0)
        #expect(try await opened.storage.messages(mailbox: alice, after: 0, limit: 10, now: 2).count == 1)
        #expect(try await opened.storage.acknowledge(mailbox: alice, messageIDs: [id, id]) == 1)
        #expect(try await opened.storage.messages(mailbox: alice, after: 0, limit: 10, now: 2).isEmpty)
    }

    @Test(arguments: Driver.allCases)
    func sweepFreesQuota(driver: Driver) async throws {
        let opened = try Opened(driver)
        let mailbox = [UInt8](repeating: 6, count: 32)
        let quota = MailboxQuota(maxCount: 1, maxBytes: 100)
        _ = try await opened.storage.deposit(mailbox: mailbox, requestID: "a", envelope: [1], now: 1, expiresAt: 10, quota: quota)
        await #expect(throws: RelayError.quotaExceeded) {
            try await opened.storage.deposit(mailbox: mailbox, requestID: "b", envelope: [1], now: 2, expiresAt: 10, quota: quota)
        }
        let swept = try await opened.storage.sweep(now: 10)
        #expect(swept.envelopes == 1 && swept.depositRecords == 1)
        _ = try await opened.storage.deposit(mailbox: mailbox, requestID: "b", envelope: [1], now: 11, expiresAt: 20, quota: quota)
        let inventory = try await opened.storage.inventory()
        #expect(inventory.messages.count == 1 && inventory.messages[0].size == 1)
    }

    @Test(arguments: Driver.allCases)
    func blobQuotasCountOnlyTheUploadersUnexpiredBlobs(driver: Driver) async throws {
        let opened = try Opened(driver)
        let alice = [UInt8](repeating: 1, count: 32), bob = [UInt8](repeating: 2, count: 32)
        let quota = BlobQuota(maxBytes: 1_000, maxCount: 3)
        try await opened.storage.recordBlob(id: "a1", size: 600, uploader: alice, quota: quota, createdAt: 0, expiresAt: 100)
        await #expect(throws: RelayError.blobQuotaExceeded("1000 bytes at most")) {
            try await opened.storage.recordBlob(id: "a2", size: 401, uploader: alice, quota: quota, createdAt: 1, expiresAt: 100)
        }
        try await opened.storage.recordBlob(id: "a2", size: 400, uploader: alice, quota: quota, createdAt: 1, expiresAt: 100)
        try await opened.storage.recordBlob(id: "b1", size: 1_000, uploader: bob, quota: quota, createdAt: 1, expiresAt: 100)
        #expect(try await opened.storage.blobUsage(uploader: alice, now: 2) == BlobUsage(count: 2, bytes: 1_000))
        // Expired blobs no longer count.
        #expect(try await opened.storage.blobUsage(uploader: alice, now: 100) == BlobUsage(count: 0, bytes: 0))
        for index in 0..<3 {
            try await opened.storage.recordBlob(id: "c\(index)", size: 1, uploader: alice, quota: quota, createdAt: 100, expiresAt: 200)
        }
        await #expect(throws: RelayError.blobQuotaExceeded("3 blobs at most")) {
            try await opened.storage.recordBlob(id: "c3", size: 1, uploader: alice, quota: quota, createdAt: 100, expiresAt: 200)
        }
        #expect(try await opened.storage.inventory().blobs.first { $0.id == "b1" }?.uploader == bob)
    }
}
