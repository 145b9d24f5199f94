import Dispatch
import HushCrypto
@testable import HushRelay
@testable import HushRelayPostgres
import HushRelayAPI
import HushTesting
import PostgresNIO
import Synchronization
import Testing

/// `MailboxStore.submitFanOut`'s contract, run against every driver: each
/// deposit is checked as `submit` checks it and fails alone, every admitted
/// one is stored in one atomic step, and a storage failure stores none.
@Suite struct FanOutStorageTests {
    static let quota = MailboxQuota(maxCount: 100, maxBytes: 100_000)

    /// Registered mailboxes 1…count (32 bytes each of that value).
    static func mailboxes(_ count: Int, in driver: any RelayStorageDriver) async throws -> [[UInt8]] {
        var boxes: [[UInt8]] = []
        for index in 1...count {
            let box = [UInt8](repeating: UInt8(index), count: 32)
            try await driver.registerForTest(box)
            boxes.append(box)
        }
        return boxes
    }

    static func fanOut(_ boxes: [[UInt8]], _ requestID: String, _ envelope: [UInt8],
                       admission: (Int) -> DepositSubmission.Admission = { _ in .firstContact(admit: {}) },
                       quota: (Int) -> MailboxQuota = { _ in FanOutStorageTests.quota }) -> [DepositSubmission] {
        boxes.enumerated().map { index, box in
            DepositSubmission(mailbox: box, requestID: requestID, envelope: envelope, admission: admission(index),
                              now: 1_000, expiresAt: 1_000_000, quota: quota(index))
        }
    }

    static func record(_ result: Result<DepositOutcome, any Error>) throws -> DepositRecord {
        guard case let .stored(record, _) = try result.get() else { throw TestFailure("a new request id was not stored") }
        return record
    }

    @Test(arguments: StorageDriver.allCases)
    func aRefusedRecipientFailsAloneAndTheOthersAreStored(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let storage = opened.driver
        let boxes = try await Self.mailboxes(5, in: storage)
        let credential = [UInt8](repeating: 0xC1, count: 32)
        _ = try await storage.updateCredentials(mailbox: boxes[0], add: [DeliveryCredential.hash(credential)], remove: [])
        // boxes[3] already holds one envelope, its quota's whole count.
        _ = try await storage.deposit(mailbox: boxes[3], requestID: "earlier", envelope: [9], now: 900, expiresAt: 1_000_000, quota: Self.quota)
        let stranger = [UInt8](repeating: 0xEE, count: 32)
        let admitted = Mutex(0)
        let recipients = boxes + [stranger]
        let deposits = Self.fanOut(recipients, "group-1", [1, 2, 3], admission: { index in
            switch index {
            case 0: .credential(hash: DeliveryCredential.hash(credential))
            case 1: .credential(hash: DeliveryCredential.hash([0]))
            case 2: .firstContact { throw RelayError.workRequired(bits: 16) }
            default: .firstContact { admitted.withLock { $0 += 1 } }
            }
        }, quota: { $0 == 3 ? MailboxQuota(maxCount: 1, maxBytes: 100) : Self.quota })
        let results = try await storage.submitFanOut(deposits)
        #expect(results.count == recipients.count)
        let first = try Self.record(results[0])
        #expect(throws: RelayError.invalidCredential) { try results[1].get() }
        #expect(throws: RelayError.workRequired(bits: 16)) { try results[2].get() }
        #expect(throws: RelayError.quotaExceeded) { try results[3].get() }
        let fifth = try Self.record(results[4])
        #expect(throws: RelayError.notFound("mailbox")) { try results[5].get() }
        // The admission runs for new first contacts that get that far: boxes[3] (then over quota) and boxes[4].
        #expect(admitted.withLock { $0 } == 2)
        for (index, box) in boxes.enumerated() {
            let held = try await storage.messages(mailbox: box, after: 0, limit: 10, now: 1_001)
            switch index {
            case 0: #expect(held.map(\.messageID) == [first.messageID] && held[0].envelope == [1, 2, 3])
            case 3: #expect(held.map(\.envelope) == [[9]], "the refused recipient keeps only what it had")
            case 4: #expect(held.map(\.messageID) == [fifth.messageID] && held[0].envelope == [1, 2, 3])
            default: #expect(held.isEmpty, "refused recipient \(index) got the envelope")
            }
        }
        #expect(try await storage.inventory().depositRecords == 3)
    }

    /// Idempotency is per (mailbox, request id), as for single deposits: the
    /// same fan-out again answers every recipient's first 201; another
    /// envelope under the same id is a conflict for each stored one, while a
    /// recipient new to the request id is stored.
    @Test(arguments: StorageDriver.allCases)
    func aRepeatAnswersTheFirstResultsAndAnotherEnvelopeConflicts(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let storage = opened.driver
        let boxes = try await Self.mailboxes(4, in: storage)
        let first = try await storage.submitFanOut(Self.fanOut(Array(boxes.prefix(3)), "g", [7, 7])).map(Self.record)
        let again = try await storage.submitFanOut(Self.fanOut(Array(boxes.prefix(3)), "g", [7, 7]))
        for (result, record) in zip(again, first) { #expect(try result.get() == .repeated(record)) }
        let other = try await storage.submitFanOut(Self.fanOut(boxes, "g", [8, 8]))
        for result in other.prefix(3) {
            #expect(throws: RelayError.conflict("request id already used with a different envelope")) { try result.get() }
        }
        let newcomer = try Self.record(other[3])
        #expect(try await storage.messages(mailbox: boxes[3], after: 0, limit: 10, now: 1_001).map(\.messageID) == [newcomer.messageID])
        let inventory = try await storage.inventory()
        #expect(inventory.messages.count == 4 && inventory.depositRecords == 4)
        // A single deposit sees the fan-out's record: the same id for the same envelope.
        #expect(try await storage.deposit(mailbox: boxes[1], requestID: "g", envelope: [7, 7], now: 2_000, expiresAt: 1_000_000,
                                          quota: Self.quota) == .repeated(first[1]))
    }

    /// One atomic step: a reader that finds the first recipient's envelope
    /// finds every later recipient's too (were they written one by one, in
    /// order, it would catch one without the next). The reader runs while
    /// fan-outs commit; each read is a separate call, in recipient order.
    @Test(arguments: StorageDriver.allCases)
    func everyAdmittedRecipientBecomesVisibleAtOnce(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let storage = opened.driver
        let boxes = try await Self.mailboxes(8, in: storage)
        let rounds = 20
        let torn = Mutex<[String]>([])
        let done = Mutex(false)
        let reader = Task {
            var looks = 0
            // Until the writer is done, or at the first torn fan-out (one is enough to fail).
            while (!done.withLock({ $0 }) || looks == 0) && torn.withLock({ $0.isEmpty }) {
                looks += 1
                // The SQLCipher driver's reads never suspend: without a yield this loop holds
                // one of the shared pool's threads for good, and on two cores the writer below
                // (and other suites) waited for ever (make test spun 22 minutes here, s54).
                await Task.yield()
                for round in 0..<rounds {
                    // Seen in the first mailbox ⇒ present in all the later ones.
                    var seenFirst = false
                    for (index, box) in boxes.enumerated() {
                        let held = try await storage.messages(mailbox: box, after: 0, limit: 100, now: 1_001)
                        let present = held.contains { $0.envelope == [UInt8(round), 0xF0] }
                        if index == 0 { seenFirst = present } else if seenFirst && !present {
                            torn.withLock { $0.append("round \(round): in mailbox 0 but not in mailbox \(index)") }
                        }
                    }
                }
            }
            return looks
        }
        for round in 0..<rounds {
            let results = try await storage.submitFanOut(Self.fanOut(boxes, "atomic-\(round)", [UInt8(round), 0xF0]))
            #expect(results.allSatisfy { (try? $0.get()) != nil })
        }
        done.withLock { $0 = true }
        let looks = try await reader.value
        #expect(torn.withLock { $0 }.isEmpty, "\(torn.withLock { $0 })")
        #expect(looks >= 1)
        for box in boxes { #expect(try await storage.messages(mailbox: box, after: 0, limit: 100, now: 1_001).count == rounds) }
    }

    /// A failure of the database itself (here a trigger that refuses the
    /// last recipient's row, after the earlier ones were written in the same
    /// transaction) throws, and none of the fan-out is stored; the next one
    /// is stored whole.
    @Test(arguments: StorageDriver.allCases.filter { $0 != .memory })
    func aStorageFailureStoresNoneOfTheFanOut(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let storage = opened.driver
        let boxes = try await Self.mailboxes(4, in: storage)
        let last = Hex.encode(boxes[3])
        switch storage {
        case let sqlcipher as SQLCipherRelayStorage:
            try sqlcipher.write { db in
                try db.execute("""
                    CREATE TRIGGER refuse_last BEFORE INSERT ON messages WHEN NEW.mailbox = X'\(last)'
                    BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                    """)
            }
        case let postgres as PostgresRelayStorage:
            try await postgres.transaction { connection in
                try await connection.query(PostgresQuery(unsafeSQL: """
                    CREATE FUNCTION refuse_last() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN IF NEW.mailbox = '\\x\(last)'::bytea THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$
                    """), logger: postgres.logger)
                try await connection.query(PostgresQuery(unsafeSQL: """
                    CREATE TRIGGER refuse_last BEFORE INSERT ON deposits FOR EACH ROW EXECUTE FUNCTION refuse_last()
                    """), logger: postgres.logger)
            }
        default:
            throw TestFailure("no failure to inject into \(driver)")
        }
        await #expect(throws: (any Error).self) { try await storage.submitFanOut(Self.fanOut(boxes, "doomed", [5, 5])) }
        #expect(try await storage.inventory().messages.isEmpty, "part of a failed fan-out was stored")
        #expect(try await storage.inventory().depositRecords == 0)
        // The three that do not hit the trigger, as one fan-out: stored, and the request id was never taken.
        let results = try await storage.submitFanOut(Self.fanOut(Array(boxes.prefix(3)), "doomed", [5, 5]))
        #expect(try results.map(Self.record).count == 3)
        #expect(try await storage.inventory().messages.count == 3)
    }

    /// A fan-out larger than the group commit's batch still commits whole,
    /// and single deposits queued behind it are answered too.
    @Test func theGroupCommitNeverSplitsOneCallersItems() async throws {
        let gate = DispatchSemaphore(value: 0)
        let batches = Mutex<[[Int]]>([])
        let queue = GroupCommitQueue<Int, Int>(label: "fan-out-test", maxBatch: 4) { batch in
            let number = batches.withLock { $0.append(batch); return $0.count }
            if number == 1 { gate.wait() }
            if batch.contains(99) { throw RelayError.storageUnavailable }
            return batch.map { .success($0 * 10) }
        }
        async let first = queue.submit(0)
        while batches.withLock({ $0.count }) < 1 { await Task.yield() }
        // Queued behind the first commit: two singles, a group of six (over maxBatch), a single.
        let a = Task { try await queue.submit(1) }
        while queue.waitingCount < 1 { await Task.yield() }
        let group = Task { try await queue.submitTogether(Array(2...7)) }
        while queue.waitingCount < 2 { await Task.yield() }
        let b = Task { try await queue.submit(8) }
        while queue.waitingCount < 3 { await Task.yield() }
        gate.signal()
        #expect(try await first == 0)
        #expect(try await a.value == 10)
        #expect(try await group.value.map { try $0.get() } == [20, 30, 40, 50, 60, 70])
        #expect(try await b.value == 80)
        // A failed commit fails every caller of its batch, a group as a whole.
        await #expect(throws: RelayError.storageUnavailable) { try await queue.submitTogether([98, 99]) }
        #expect(try await queue.submitTogether([]).isEmpty)
        let seen = batches.withLock { $0 }
        #expect(seen[0] == [0] && seen[1] == [1] && seen[2] == Array(2...7) && seen[3] == [8], "\(seen)")
    }
}
