import Foundation
import HushCrypto
import HushRelay
import HushRelayAPI
import HushRelayPostgres
import Logging
import PostgresTestCluster
import HushTesting
import Testing

/// The storage drivers every store and policy test runs against.
enum StorageDriver: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, sqlcipher, postgres
    var testDescription: String { rawValue }

    /// Every driver, except PostgreSQL when `HUSH_TEST_SKIP_POSTGRES=1`: `make test-fast`
    /// sets it (and says so) because the cluster is separate processes that take
    /// seconds to start. `make test` never sets it, so there they never skip.
    static var allCases: [StorageDriver] {
        let skipPostgres = ProcessInfo.processInfo.environment["HUSH_TEST_SKIP_POSTGRES"] == "1"
        return skipPostgres ? [.memory, .sqlcipher] : [.memory, .sqlcipher, .postgres]
    }
}

/// A freshly opened driver with nothing stored, and what it lives in.
final class OpenedDriver: @unchecked Sendable {
    let driver: any RelayStorageDriver
    let directory: TemporaryDirectory

    init(_ kind: StorageDriver) async throws {
        directory = try TemporaryDirectory()
        switch kind {
        case .memory:
            driver = InMemoryRelayStorage()
        case .sqlcipher:
            driver = try SQLCipherRelayStorage(path: directory.path + "/relay.db",
                                               key: SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "key")))
        case .postgres:
            let storage = try await PostgresRelayStorage(url: PostgresURL(PostgresTestCluster.freshDatabase("driver")),
                                                         instance: "test", maxConnections: 4, logger: Self.quietLogger)
            driver = storage
            close = { storage.close() }
        }
    }

    private var close: () -> Void = {}
    deinit { close() }

    static let quietLogger: Logger = {
        var logger = Logger(label: "test.postgres")
        logger.logLevel = .critical
        return logger
    }()

    var storage: RelayStorage { RelayStorage(driver) }
}

extension IdentityStore {
    /// Registers `identity` (any 32 bytes: the stores do not verify keys;
    /// the routes do) with a test user's prekeys.
    func registerForTest(_ identity: [UInt8], at registeredAt: Int64 = 1) async throws {
        let user = try TestUser(seed: "prekeys")
        _ = try await register(identity: identity, signedPrekey: user.signedPrekey, lastResortKEMPrekey: user.lastResortKEM,
                               oneTimePrekeys: [], registeredAt: registeredAt)
    }
}

extension MailboxStore {
    /// A first-contact deposit that every admission check lets through.
    func deposit(mailbox: [UInt8], requestID: String, envelope: [UInt8], now: Int64, expiresAt: Int64,
                 quota: MailboxQuota) async throws -> DepositOutcome {
        try await submit(DepositSubmission(mailbox: mailbox, requestID: requestID, envelope: envelope, admission: .firstContact(admit: {}),
                                           now: now, expiresAt: expiresAt, quota: quota))
    }
}
