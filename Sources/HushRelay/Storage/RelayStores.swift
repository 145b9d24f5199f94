import HushProtocol

// Everything the relay persists, as small stores with one concern each, so
// that a route depends only on what it uses and a driver implements each
// concern in a few methods. Drivers: `InMemoryRelayStorage` (tests, load
// measurements), `SQLCipherRelayStorage` (the embedded default) and
// `PostgresRelayStorage` (several relay instances on one database).
//
// Every method is atomic: a driver never leaves half of an operation.
// Identities are raw 32-byte Ed25519 keys; times are Unix milliseconds.

/// Registered identities and their prekey bundles.
public protocol IdentityStore: Sendable {
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
}

/// Login challenges and bearer tokens (stored as SHA-256 hashes only).
public protocol AuthStore: Sendable {
    func storeChallenge(nonce: [UInt8], identity: [UInt8], expiresAt: Int64) async throws
    /// Removes the challenge and reports whether it existed for this identity
    /// and had not expired. A second call with the same nonce returns false.
    func consumeChallenge(nonce: [UInt8], identity: [UInt8], now: Int64) async throws -> Bool
    func storeToken(hash: [UInt8], identity: [UInt8], expiresAt: Int64) async throws
    /// The identity a token hash belongs to, when it has not expired.
    func tokenIdentity(hash: [UInt8], now: Int64) async throws -> TokenGrant?
}

/// The delivery credentials (hashes) a mailbox owner hands its contacts.
public protocol CredentialStore: Sendable {
    /// Adds and removes credential hashes; returns how many the mailbox holds.
    func updateCredentials(mailbox: [UInt8], add: [[UInt8]], remove: [[UInt8]]) async throws -> Int
    func hasCredential(mailbox: [UInt8], hash: [UInt8]) async throws -> Bool
}

/// Sealed envelopes waiting for their recipient.
public protocol MailboxStore: Sendable {
    /// Runs `DepositPolicy` over the driver's ledger and stores the envelope
    /// as one atomic step; returns only once the deposit is durable. A driver
    /// may batch concurrent submissions into one transaction (group commit).
    func submit(_ deposit: DepositSubmission) async throws -> DepositOutcome
    /// A fan-out: runs `DepositPolicy` over each deposit as `submit` would and
    /// stores every admitted one in ONE atomic step (one transaction), then
    /// returns one result per deposit, in order. A deposit the policy refuses
    /// fails alone (its `RelayError`) and stores nothing; a failure of the
    /// storage itself throws, and then none of them is stored.
    func submitFanOut(_ deposits: [DepositSubmission]) async throws -> [Result<DepositOutcome, any Error>]
    /// Unexpired envelopes with id > `after`, oldest first, at most `limit`.
    /// Within a mailbox, ids become visible in increasing order (a client
    /// treats everything at or below the highest id it stored as processed).
    func messages(mailbox: [UInt8], after: UInt64, limit: Int, now: Int64) async throws -> [StoredEnvelope]
    /// Deletes the listed envelopes of this mailbox; returns how many existed.
    func acknowledge(mailbox: [UInt8], messageIDs: [UInt64]) async throws -> Int
}

/// What the relay knows of the blobs whose bytes `BlobStore` keeps.
public protocol BlobIndex: Sendable {
    /// Records a blob `uploader` stored, unless that would take the
    /// uploader's unexpired blobs over `quota` (`RelayError.blobQuotaExceeded`).
    func recordBlob(id: String, size: Int, uploader: [UInt8], quota: BlobQuota, createdAt: Int64, expiresAt: Int64) async throws
    /// What `uploader`'s unexpired blobs take now.
    func blobUsage(uploader: [UInt8], now: Int64) async throws -> BlobUsage
    /// What every uploader's unexpired blobs take now (the relay's total budget).
    func totalBlobUsage(now: Int64) async throws -> BlobUsage
    func blob(id: String, now: Int64) async throws -> BlobRecord?
    /// Forgets blob `id` when `uploader` stored it (and it has not expired);
    /// false when there is no such blob of theirs. The caller then deletes
    /// the bytes (`BlobStore.delete`): a download already under way keeps
    /// its open file to the end.
    func deleteBlob(id: String, uploader: [UInt8], now: Int64) async throws -> Bool
}

/// Accounts' device directories (docs/PROTOCOL.md §20.9). The route checks
/// the write's signature; the store keeps the order of counters.
public protocol DirectoryStore: Sendable {
    /// Stores `record` under `name` unless a record with a higher counter,
    /// or the same counter and other bytes, is held there
    /// (`RelayError.conflict`, nothing changes). `counter` ≤ `Int64.max`.
    func writeDirectory(name: [UInt8], counter: UInt64, record: [UInt8], now: Int64) async throws -> DirectoryWrite
    func directory(name: [UInt8]) async throws -> DirectoryRecord?
}

/// Forgetting what has expired.
public protocol ExpiryStore: Sendable {
    /// Deletes expired envelopes, idempotency records, challenges, tokens,
    /// blob records and directories not written for
    /// `RelayLimits.directoryLifetime`; returns what went, including blob ids
    /// to delete from disk.
    func sweep(now: Int64) async throws -> SweepResult
}

/// What `hush audit relay` prints.
public protocol InventoryStore: Sendable {
    /// Everything stored (envelope bytes and token hashes excluded).
    func inventory() async throws -> RelayInventory
    /// Bytes the storage keeps outside the relay's data directory (a database
    /// server's), for the storage-size metric; 0 for files in the directory.
    func bytesOutsideDataDirectory() async throws -> Int64
}

extension InventoryStore {
    public func bytesOutsideDataDirectory() async throws -> Int64 { 0 }
}

/// A driver that implements every store.
public typealias RelayStorageDriver = IdentityStore & AuthStore & CredentialStore & MailboxStore & BlobIndex & DirectoryStore & ExpiryStore
    & InventoryStore

/// The stores a relay runs on, composed from one driver (or, in tests, from
/// several). `deposits` is set by drivers shared by several relay instances:
/// it reports what the other instances stored, so that a recipient whose
/// socket is here hears of it at once.
public struct RelayStorage: Sendable {
    public var identities: any IdentityStore
    public var auth: any AuthStore
    public var credentials: any CredentialStore
    public var mailboxes: any MailboxStore
    public var blobs: any BlobIndex
    public var directories: any DirectoryStore
    public var expiry: any ExpiryStore
    public var inventory: any InventoryStore
    public var deposits: (any DepositFeed)?

    public init(_ driver: some RelayStorageDriver, deposits: (any DepositFeed)? = nil) {
        identities = driver
        auth = driver
        credentials = driver
        mailboxes = driver
        blobs = driver
        directories = driver
        expiry = driver
        inventory = driver
        self.deposits = deposits
    }
}

/// Deposits other relay instances stored, as they commit.
public protocol DepositFeed: Sendable {
    /// Runs until cancelled, handing `sockets` each envelope another instance
    /// stored for a mailbox with a socket here. After its own connection to
    /// the database was lost and restored (and when it starts), it also
    /// pokes the sockets here whose mailboxes got something meanwhile.
    /// Nothing is lost either way: envelopes stay stored until acknowledged,
    /// and every socket syncs when it connects.
    func run(_ sockets: any DepositFeedSockets) async throws
}

/// The sockets of this instance, as the deposit feed sees them.
public protocol DepositFeedSockets: Sendable {
    /// Mailboxes with at least one socket here.
    var connectedMailboxes: [[UInt8]] { get }
    func isConnected(_ mailbox: [UInt8]) -> Bool
    /// Pushes the envelope to the mailbox's sockets here, with the deposit's
    /// `previousMessageID` when known (`DepositOutcome.stored`).
    func deliver(_ envelope: StoredEnvelope, previousMessageID: UInt64?, to mailbox: [UInt8])
}
