import HushProtocol

/// Everything the relay persists, behind one protocol so that the routes never
/// know which database holds it. Drivers: `InMemoryMailboxStorage` (tests),
/// `SQLCipherMailboxStorage` (the embedded default). A PostgreSQL driver for
/// several relay instances would implement the same protocol.
///
/// Identities are raw 32-byte Ed25519 keys; times are Unix milliseconds.
/// Every method is atomic: a driver must never leave half of an operation.
public protocol MailboxStorage: Sendable {
    // MARK: Identities and prekeys

    /// Stores or replaces the identity's signed and last-resort prekeys and
    /// adds `oneTimePrekeys` (skipping ids already stored), keeping at most
    /// `RelayLimits.maxStoredOneTimePrekeysPerKind` per kind. Throws
    /// `.staleRegistration` unless `registeredAt` is newer than the last one.
    func register(identity: [UInt8], signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                  oneTimePrekeys: [SignedPrekey], registeredAt: Int64) async throws -> PrekeyCounts
    func isRegistered(identity: [UInt8]) async throws -> Bool
    /// Adds one-time prekeys to a registered identity (same cap as above).
    func addOneTimePrekeys(identity: [UInt8], _ prekeys: [SignedPrekey]) async throws -> PrekeyCounts
    func prekeyCounts(identity: [UInt8]) async throws -> PrekeyCounts
    /// The bundle, consuming one one-time X25519 and one one-time KEM prekey
    /// when any are left and `consumingOneTimePrekeys`; without, the signed
    /// and last-resort prekeys only. nil when the identity is unknown.
    func takeBundle(identity: [UInt8], consumingOneTimePrekeys: Bool) async throws -> PrekeyBundle?

    // MARK: Authentication

    func storeChallenge(nonce: [UInt8], identity: [UInt8], expiresAt: Int64) async throws
    /// Removes the challenge and reports whether it existed for this identity
    /// and had not expired. A second call with the same nonce returns false.
    func consumeChallenge(nonce: [UInt8], identity: [UInt8], now: Int64) async throws -> Bool
    func storeToken(hash: [UInt8], identity: [UInt8], expiresAt: Int64) async throws
    /// The identity a token hash belongs to, when it has not expired.
    func tokenIdentity(hash: [UInt8], now: Int64) async throws -> TokenGrant?

    // MARK: Delivery credentials

    /// Adds and removes credential hashes; returns how many the mailbox holds.
    func updateCredentials(mailbox: [UInt8], add: [[UInt8]], remove: [[UInt8]]) async throws -> Int
    func hasCredential(mailbox: [UInt8], hash: [UInt8]) async throws -> Bool

    // MARK: Mailboxes

    /// The earlier result for this request id, if any (idempotency).
    func findDeposit(mailbox: [UInt8], requestID: String) async throws -> DepositRecord?
    /// Stores an envelope, or returns the earlier result for a repeated
    /// request id (`.conflict` when the envelope differs). Throws
    /// `.quotaExceeded` when the mailbox would exceed `quota`.
    func deposit(mailbox: [UInt8], requestID: String, envelope: [UInt8], now: Int64, expiresAt: Int64,
                 quota: MailboxQuota) async throws -> DepositOutcome
    /// What the deposit route calls: every check and the store as one
    /// atomic step, in this order: the mailbox is registered (`.notFound`),
    /// the credential is registered (`.invalidCredential`), a repeated request
    /// id returns the earlier result (`.conflict` when the envelope differs),
    /// a new first contact is admitted (whatever `admit` throws), the quota
    /// holds (`.quotaExceeded`). Returns only once the deposit is durable;
    /// a driver may batch concurrent submissions into one transaction. A
    /// default built from the calls above exists for drivers without one.
    func submit(_ deposit: DepositSubmission) async throws -> DepositOutcome
    /// Unexpired envelopes with id > `after`, oldest first, at most `limit`.
    func messages(mailbox: [UInt8], after: UInt64, limit: Int, now: Int64) async throws -> [StoredEnvelope]
    /// Deletes the listed envelopes of this mailbox; returns how many existed.
    func acknowledge(mailbox: [UInt8], messageIDs: [UInt64]) async throws -> Int

    // MARK: Blobs

    /// Records a blob `uploader` stored, unless that would take the
    /// uploader's unexpired blobs over `quota` (`RelayError.blobQuotaExceeded`).
    func recordBlob(id: String, size: Int, uploader: [UInt8], quota: BlobQuota, createdAt: Int64, expiresAt: Int64) async throws
    /// What `uploader`'s unexpired blobs take now.
    func blobUsage(uploader: [UInt8], now: Int64) async throws -> BlobUsage
    func blob(id: String, now: Int64) async throws -> BlobRecord?

    // MARK: Maintenance

    /// Deletes expired envelopes, idempotency records, challenges, tokens and
    /// blob records; returns what went, including blob ids to delete from disk.
    func sweep(now: Int64) async throws -> SweepResult
    /// Everything stored, as the audit prints it (envelope bytes excluded).
    func inventory() async throws -> RelayInventory
}

public struct PrekeyCounts: Sendable, Equatable {
    public var oneTimeX25519: Int
    public var oneTimeKEM: Int
    public init(oneTimeX25519: Int, oneTimeKEM: Int) {
        self.oneTimeX25519 = oneTimeX25519
        self.oneTimeKEM = oneTimeKEM
    }
}

public struct TokenGrant: Sendable, Equatable {
    public var identity: [UInt8]
    public var expiresAt: Int64
}

public struct MailboxQuota: Sendable {
    public var maxCount: Int
    public var maxBytes: Int
    public init(maxCount: Int, maxBytes: Int) {
        self.maxCount = maxCount
        self.maxBytes = maxBytes
    }
}

/// What a deposit produced; the same for every repeat of a request id.
public struct DepositRecord: Sendable, Equatable {
    public var messageID: UInt64
    public var timestamp: Int64
    public var expiresAt: Int64
    /// SHA-256 of the envelope, to tell a true repeat from a reused id.
    public var envelopeDigest: [UInt8]
}

public enum DepositOutcome: Sendable, Equatable {
    case stored(DepositRecord)
    case repeated(DepositRecord)

    public var record: DepositRecord {
        switch self {
        case let .stored(record), let .repeated(record): record
        }
    }
}

public struct StoredEnvelope: Sendable, Equatable {
    public var messageID: UInt64
    public var timestamp: Int64
    public var expiresAt: Int64
    public var envelope: [UInt8]
}

public struct BlobRecord: Sendable, Equatable {
    public var id: String
    public var size: Int
    public var createdAt: Int64
    public var expiresAt: Int64
    /// The identity that uploaded it (authenticated upload).
    public var uploader: [UInt8]?
}

/// How much blob storage one identity may hold at once.
public struct BlobQuota: Sendable, Equatable {
    public var maxBytes: Int
    public var maxCount: Int

    public init(maxBytes: Int, maxCount: Int) {
        self.maxBytes = maxBytes
        self.maxCount = maxCount
    }

    /// Refuses `size` more bytes on top of `usage`.
    func check(adding size: Int, to usage: BlobUsage) throws {
        guard usage.count < maxCount else { throw RelayError.blobQuotaExceeded("\(maxCount) blobs at most") }
        guard size <= maxBytes - usage.bytes else { throw bytesExceeded }
    }

    /// The error for a blob that does not fit in the byte quota.
    var bytesExceeded: RelayError {
        .blobQuotaExceeded((maxBytes >= 1 << 20 ? "\(maxBytes >> 20) MiB" : "\(maxBytes) bytes") + " at most")
    }
}

public struct BlobUsage: Sendable, Equatable {
    public var count: Int
    public var bytes: Int

    public init(count: Int, bytes: Int) {
        self.count = count
        self.bytes = bytes
    }
}

public struct SweepResult: Sendable, Equatable {
    public var envelopes = 0
    public var depositRecords = 0
    public var challenges = 0
    public var tokens = 0
    public var expiredBlobIDs: [String] = []
    public init() {}
}

/// Everything a relay holds, for `hush audit relay`: no envelope bytes, no
/// token hashes, only the fields and sizes.
public struct RelayInventory: Sendable {
    public struct Identity: Sendable {
        public var identity: [UInt8]
        public var registeredAt: Int64
        public var signedPrekeyID: UInt32
        public var lastResortKEMPrekeyID: UInt32
        public var oneTimeX25519: Int
        public var oneTimeKEM: Int
        public var credentials: Int
    }
    public struct Message: Sendable {
        public var mailbox: [UInt8]
        public var messageID: UInt64
        public var timestamp: Int64
        public var expiresAt: Int64
        public var size: Int
    }
    public var identities: [Identity] = []
    public var messages: [Message] = []
    public var depositRecords = 0
    public var challenges = 0
    public var tokens = 0
    public var blobs: [BlobRecord] = []
    public init() {}
}
