import HushCrypto
import HushRelay
import Logging
import PostgresNIO

/// The relay's stores on PostgreSQL, for several `hush relay serve`
/// instances behind a load balancer: every instance opens the same database
/// and they share identities, mailboxes, tokens and blob records (blob
/// bytes live in a directory all instances share). Deposits go through a
/// group commit, as on SQLCipher: those that arrive while a transaction is
/// in flight are checked and stored together in the next one. The stores
/// are extensions in the files beside this one.
public final class PostgresRelayStorage: Sendable {
    let client: PostgresClient
    let url: PostgresURL
    let logger: Logger
    /// Tells this instance's own notices apart from the other instances'.
    let instance: String
    private let runTask: Task<Void, Never>
    private let depositQueue: GroupCommitQueue<PendingDeposit, DepositOutcome>

    /// Most deposits in one transaction.
    static let maxDepositsPerCommit = 256
    /// The NOTIFY channel for stored deposits: payload `INSTANCE MAILBOXHEX ID PREVIOUS`
    /// (PREVIOUS: the deposit's `previousMessageID`, for the push).
    static let depositChannel = "hush_deposits"

    struct PendingDeposit: Sendable {
        let submission: DepositSubmission
        let digest: [UInt8]
    }

    /// Connects (a pool of at most `maxConnections`), migrates, and starts
    /// taking deposits. Throws `PostgresStorageError.unreachable` when the
    /// server cannot be reached.
    public init(url: PostgresURL, instance: String, maxConnections: Int = 20, logger: Logger) async throws {
        // One connection first, to fail fast with a clear reason (the pool
        // would retry a refused login forever) and to migrate on.
        let probe: PostgresConnection
        do {
            probe = try await PostgresConnection.connect(configuration: url.connectionConfiguration(), id: 0, logger: logger)
        } catch {
            throw PostgresStorageError(connecting: error, to: url)
        }
        do {
            try await PostgresSchema.migrate(probe, logger: logger)
            try? await probe.close()
        } catch let error as PostgresStorageError {
            try? await probe.close()
            throw error
        } catch {
            try? await probe.close()
            throw PostgresStorageError(connecting: error, to: url)
        }
        var configuration = url.clientConfiguration()
        configuration.options.maximumConnections = maxConnections
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.url = url
        self.logger = logger
        self.instance = instance
        self.runTask = Task { await client.run() }
        self.depositQueue = GroupCommitQueue<PendingDeposit, DepositOutcome>(maxBatch: Self.maxDepositsPerCommit) { [client, logger, instance] batch in
            try await Self.commitDeposits(batch, client: client, instance: instance, logger: logger)
        }
    }

    /// A random name for one relay process, to tell its own notices apart.
    public static func newInstanceID() -> String { Hex.encode(SystemRandom().bytes(8)) }

    /// Closes the pool; pending calls fail.
    public func close() {
        runTask.cancel()
    }

    func enqueue(_ deposit: DepositSubmission) async throws -> DepositOutcome {
        try await depositQueue.submit(PendingDeposit(submission: deposit, digest: SHA256.hash(deposit.envelope)))
    }

    /// Queues the deposits together: one transaction commits all of them or none.
    func enqueue(together deposits: [DepositSubmission]) async throws -> [Result<DepositOutcome, any Error>] {
        try await depositQueue.submitTogether(DepositSubmission.digested(deposits).map { PendingDeposit(submission: $0.submission, digest: $0.digest) })
    }

    /// Runs `body`; a failure of the database (not a refusal) becomes 503
    /// `storageUnavailable`, so that clients keep what they sent and retry.
    func guarded<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as RelayError {
            throw error
        } catch {
            logger.error("PostgreSQL failed", metadata: ["error": "\(PostgresFailure(error))"])
            throw RelayError.storageUnavailable
        }
    }

    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await guarded {
            do {
                return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
            } catch let error as PostgresTransactionError {
                // A refusal thrown inside the transaction is the caller's answer, not a failure.
                if let refusal = error.closureError as? RelayError { throw refusal }
                throw error
            }
        }
    }
}

extension ByteBuffer {
    /// The readable bytes, as the stores pass them around.
    var bytes: [UInt8] { Array(readableBytesView) }
}

extension Array where Element == UInt8 {
    /// As a bytea bind (a `[UInt8]` would bind as an array of "char").
    var bytea: ByteBuffer { ByteBuffer(bytes: self) }
}
