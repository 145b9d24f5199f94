import HushCrypto
import HushRelay
import Synchronization
import Testing

/// The stores' contract, run against every driver.
@Suite struct RelayStorageDriverTests {
    static let quota = MailboxQuota(maxCount: 100, maxBytes: 10_000)

    @Test(arguments: StorageDriver.allCases)
    func messageIDsIncreaseEvenWhenTheClockStepsBack(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let mailbox = [UInt8](repeating: 1, count: 32)
        try await opened.driver.registerForTest(mailbox)
        var ids: [UInt64] = []
        for (index, now) in [Int64(5_000), 5_000, 4_000, 6_000].enumerated() {
            let outcome = try await opened.driver.deposit(mailbox: mailbox, requestID: "r\(index)", envelope: [UInt8(index)], now: now,
                                                           expiresAt: now + 1_000_000, quota: Self.quota)
            ids.append(outcome.record.messageID)
        }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        #expect(ids[0] >> 10 == 5_000)
    }

    /// The push's previous id: below the deposit's own id and at or above
    /// every other id the mailbox holds, before and after acknowledgements,
    /// and 0 only for a mailbox that holds nothing (the client's fast path
    /// relies on exactly this).
    @Test(arguments: StorageDriver.allCases)
    func eachStoredDepositNamesAPreviousIDCoveringTheMailbox(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let mailbox = [UInt8](repeating: 7, count: 32), other = [UInt8](repeating: 8, count: 32)
        try await opened.driver.registerForTest(mailbox)
        try await opened.driver.registerForTest(other)
        func deposit(_ requestID: String, into box: [UInt8], now: Int64) async throws -> (id: UInt64, previous: UInt64) {
            let outcome = try await opened.driver.deposit(mailbox: box, requestID: requestID, envelope: [1, 2], now: now,
                                                           expiresAt: now + 1_000_000, quota: Self.quota)
            guard case let .stored(record, previous) = outcome else { throw TestFailure("\(requestID) was not stored") }
            return (record.messageID, previous)
        }
        let first = try await deposit("a", into: mailbox, now: 1_000)
        #expect(first.previous == 0)
        // Another mailbox's deposit is not this mailbox's previous.
        _ = try await deposit("x", into: other, now: 1_001)
        let second = try await deposit("b", into: mailbox, now: 1_002)
        #expect(second.previous == first.id)
        let third = try await deposit("c", into: mailbox, now: 1_002)
        #expect(third.previous == second.id && third.previous < third.id)
        // A repeat is not stored again, so it names no previous id.
        guard case .repeated = try await opened.driver.deposit(mailbox: mailbox, requestID: "c", envelope: [1, 2], now: 1_003,
                                                               expiresAt: 2_000_000, quota: Self.quota) else {
            throw TestFailure("a repeated request id was stored again")
        }
        #expect(try await opened.driver.acknowledge(mailbox: mailbox, messageIDs: [first.id, third.id]) == 2)
        let fourth = try await deposit("d", into: mailbox, now: 1_004)
        let held = try await opened.driver.messages(mailbox: mailbox, after: 0, limit: 10, now: 1_005).map(\.messageID)
        #expect(held == [second.id, fourth.id])
        #expect(fourth.previous >= second.id && fourth.previous < fourth.id)
    }

    /// The storage-size metric adds what a database server holds.
    @Test(arguments: StorageDriver.allCases)
    func bytesOutsideTheDataDirectoryAreTheDatabaseServersOnly(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let bytes = try await opened.driver.bytesOutsideDataDirectory()
        if driver == .postgres { #expect(bytes > 0) } else { #expect(bytes == 0) }
    }

    @Test(arguments: StorageDriver.allCases)
    func challengesAreSingleUse(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let identity = [UInt8](repeating: 2, count: 32), nonce = [UInt8](repeating: 3, count: 32)
        try await opened.driver.storeChallenge(nonce: nonce, identity: identity, expiresAt: 10_000)
        #expect(try await opened.driver.consumeChallenge(nonce: nonce, identity: identity, now: 1_000))
        #expect(try await !opened.driver.consumeChallenge(nonce: nonce, identity: identity, now: 1_000))
    }

    @Test(arguments: StorageDriver.allCases)
    func ackOnlyDeletesOwnMailbox(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let alice = [UInt8](repeating: 4, count: 32), bob = [UInt8](repeating: 5, count: 32)
        try await opened.driver.registerForTest(alice)
        try await opened.driver.registerForTest(bob)
        let id = try await opened.driver.deposit(mailbox: alice, requestID: "a", envelope: [1], now: 1, expiresAt: 100, quota: Self.quota).record.messageID
        #expect(try await opened.driver.acknowledge(mailbox: bob, messageIDs: [id]) == 0)
        #expect(try await opened.driver.messages(mailbox: alice, after: 0, limit: 10, now: 2).count == 1)
        #expect(try await opened.driver.acknowledge(mailbox: alice, messageIDs: [id, id]) == 1)
        #expect(try await opened.driver.messages(mailbox: alice, after: 0, limit: 10, now: 2).isEmpty)
    }

    @Test(arguments: StorageDriver.allCases)
    func sweepFreesQuota(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let mailbox = [UInt8](repeating: 6, count: 32)
        try await opened.driver.registerForTest(mailbox)
        let quota = MailboxQuota(maxCount: 1, maxBytes: 100)
        _ = try await opened.driver.deposit(mailbox: mailbox, requestID: "a", envelope: [1], now: 1, expiresAt: 10, quota: quota)
        await #expect(throws: RelayError.quotaExceeded) {
            try await opened.driver.deposit(mailbox: mailbox, requestID: "b", envelope: [1], now: 2, expiresAt: 10, quota: quota)
        }
        let swept = try await opened.driver.sweep(now: 10)
        #expect(swept.envelopes == 1 && swept.depositRecords == 1)
        _ = try await opened.driver.deposit(mailbox: mailbox, requestID: "b", envelope: [1], now: 11, expiresAt: 20, quota: quota)
        let inventory = try await opened.driver.inventory()
        #expect(inventory.messages.count == 1 && inventory.messages[0].size == 1)
    }

    @Test(arguments: StorageDriver.allCases)
    func blobQuotasCountOnlyTheUploadersUnexpiredBlobs(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let alice = [UInt8](repeating: 1, count: 32), bob = [UInt8](repeating: 2, count: 32)
        let quota = BlobQuota(maxBytes: 1_000, maxCount: 3)
        try await opened.driver.recordBlob(id: "a1", size: 600, uploader: alice, quota: quota, createdAt: 0, expiresAt: 100)
        await #expect(throws: RelayError.blobQuotaExceeded("1000 bytes at most")) {
            try await opened.driver.recordBlob(id: "a2", size: 401, uploader: alice, quota: quota, createdAt: 1, expiresAt: 100)
        }
        try await opened.driver.recordBlob(id: "a2", size: 400, uploader: alice, quota: quota, createdAt: 1, expiresAt: 100)
        try await opened.driver.recordBlob(id: "b1", size: 1_000, uploader: bob, quota: quota, createdAt: 1, expiresAt: 100)
        #expect(try await opened.driver.blobUsage(uploader: alice, now: 2) == BlobUsage(count: 2, bytes: 1_000))
        // Expired blobs no longer count.
        #expect(try await opened.driver.blobUsage(uploader: alice, now: 100) == BlobUsage(count: 0, bytes: 0))
        for index in 0..<3 {
            try await opened.driver.recordBlob(id: "c\(index)", size: 1, uploader: alice, quota: quota, createdAt: 100, expiresAt: 200)
        }
        await #expect(throws: RelayError.blobQuotaExceeded("3 blobs at most")) {
            try await opened.driver.recordBlob(id: "c3", size: 1, uploader: alice, quota: quota, createdAt: 100, expiresAt: 200)
        }
        #expect(try await opened.driver.inventory().blobs.first { $0.id == "b1" }?.uploader == bob)
    }

    /// `DepositPolicy`'s order, through each driver's ledger.
    @Test(arguments: StorageDriver.allCases)
    func depositChecksRunInThePolicysOrder(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let storage = opened.driver
        let user = try TestUser(seed: "order")
        let stranger = [UInt8](repeating: 3, count: 32)
        _ = try await storage.register(identity: user.identity, signedPrekey: user.signedPrekey, lastResortKEMPrekey: user.lastResortKEM,
                                       oneTimePrekeys: [], registeredAt: 1)
        let admitted = Mutex(0)
        let counting = DepositSubmission.Admission.firstContact { admitted.withLock { $0 += 1 } }
        // Unknown mailbox before anything else: the admission is not consulted.
        await #expect(throws: RelayError.notFound("mailbox")) { try await storage.submit(GroupCommitTests.submission(stranger, "a", [1], admission: counting)) }
        #expect(admitted.withLock { $0 } == 0)
        // A new first contact is admitted once; its repeat is not charged again.
        let stored = try await storage.submit(GroupCommitTests.submission(user.identity, "a", [1], admission: counting))
        #expect(try await storage.submit(GroupCommitTests.submission(user.identity, "a", [1], admission: counting)) == .repeated(stored.record))
        #expect(admitted.withLock { $0 } == 1)
        // A credential is checked before the repeat: a wrong one is refused even for a known request id.
        await #expect(throws: RelayError.invalidCredential) {
            try await storage.submit(GroupCommitTests.submission(user.identity, "a", [1], admission: .credential(hash: [])))
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func concurrentDepositsBeyondTheQuotaAreRefusedAndLeaveNothing(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let mailbox = [UInt8](repeating: 7, count: 32)
        try await opened.driver.registerForTest(mailbox)
        let quota = MailboxQuota(maxCount: 2, maxBytes: 100)
        let results = await GroupCommitTests.submitConcurrently(opened.driver, (0..<5).map {
            GroupCommitTests.submission(mailbox, "r\($0)", [UInt8($0)], quota: quota)
        })
        #expect(results.filter { (try? $0.get()) != nil }.count == 2)
        #expect(results.allSatisfy { result in if case .failure(RelayError.quotaExceeded) = result { true } else { (try? result.get()) != nil } })
        let inventory = try await opened.driver.inventory()
        #expect(inventory.messages.count == 2 && inventory.depositRecords == 2)
    }
}
