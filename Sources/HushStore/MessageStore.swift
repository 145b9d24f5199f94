#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto
import HushDatabase

/// The encrypted local database (`<home>/messages.db`): the device's source
/// of truth. Opening it keys SQLCipher with the keystore's database key,
/// proves SQLCipher serves the calls, and brings the schema up to date.
///
/// Like `Database`, a store is confined to one task or actor at a time.
public final class MessageStore {
    public let database: Database
    static let cacheKiB = 32 * 1024

    /// Opens (creating when missing) and migrates the store at `path`.
    /// `key` is the keystore's 32-byte database key; nil only for benchmarks.
    public convenience init(path: String, key: SecureBytes?) throws {
        try self.init(database: try Database(path: path, key: key), key: key)
    }

    /// Opens the store of an existing identity: the file must exist, be
    /// non-empty and already carry the schema. Only `hush init` creates a
    /// store; every other command uses this, so a deleted or emptied
    /// `messages.db` is reported instead of silently replaced by an empty one
    /// (which would lose every session, and with them every waiting message).
    public static func openExisting(path: String, key: SecureBytes) throws -> MessageStore {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw StoreError.databaseMissing(path: path, reason: .missing) }
            throw StoreError.databaseMissing(path: path, reason: .unreadable(errno: errno))
        }
        guard info.st_size > 0 else { throw StoreError.databaseMissing(path: path, reason: .empty) }
        // Never created here, even if it vanished since the check above.
        let database = try Database(path: path, key: key, createIfMissing: false)
        guard try database.schemaVersion() > 0 else { throw StoreError.databaseMissing(path: path, reason: .empty) }
        return try MessageStore(database: database, key: key)
    }

    private init(database: Database, key: SecureBytes?) throws {
        self.database = database
        // Every page SQLCipher reads is decrypted and HMAC-checked, so a
        // page-cache miss costs far more than in plain SQLite: keep the hot
        // index pages (history, conversations, search) in memory. 32 MiB.
        try database.execute("PRAGMA cache_size = -\(MessageStore.cacheKiB)")
        try Schema.migrator.migrate(database)
        // Seqs a power loss may have taken back are never given again.
        try EventLogRepository(database: database).skipPastReservation()
        // A checkpoint inside a commit (every thousand pages) stalled the
        // message being sent or stored with it: run beside the commits.
        database.checkpointInBackground(key: key)
    }

    public var contacts: ContactRepository { ContactRepository(database: database) }
    public var conversations: ConversationRepository { ConversationRepository(database: database) }
    public var messages: MessageRepository { MessageRepository(database: database) }
    public var outbox: OutboxRepository { OutboxRepository(database: database) }
    public var sessions: SessionRepository { SessionRepository(database: database) }
    /// Skipped message keys of contacts' sessions, per contact.
    public var skippedKeys: SkippedKeyRepository { SkippedKeyRepository(database: database, table: "skipped_message_keys", ownerColumn: "contact_id") }
    /// Skipped message keys of sessions with our own devices, per session row id.
    public var ownDeviceSkippedKeys: SkippedKeyRepository {
        SkippedKeyRepository(database: database, table: "own_device_skipped_keys", ownerColumn: "session_id")
    }
    public var prekeys: PrekeyRepository { PrekeyRepository(database: database) }
    public var settings: SettingsRepository { SettingsRepository(database: database) }
    public var quarantine: QuarantineRepository { QuarantineRepository(database: database) }
    public var resends: ResendRepository { ResendRepository(database: database) }
    public var owedReceipts: OwedReceiptRepository { OwedReceiptRepository(database: database) }
    public var attachments: AttachmentRepository { AttachmentRepository(database: database) }
    public var groups: GroupRepository { GroupRepository(database: database) }
    public var invitations: GroupInvitationRepository { GroupInvitationRepository(database: database) }
    public var reactions: ReactionRepository { ReactionRepository(database: database) }
    public var edits: EditRepository { EditRepository(database: database) }
    public var events: EventLogRepository { EventLogRepository(database: database) }
    public var idempotencyKeys: IdempotencyKeyRepository { IdempotencyKeyRepository(database: database) }
    public var deviceLists: DeviceListRepository { DeviceListRepository(database: database) }
    public var recoveryKeys: RecoveryKeyRepository { RecoveryKeyRepository(database: database) }
    public var contactDeviceLists: ContactDeviceListRepository { ContactDeviceListRepository(database: database) }
    public var deviceSessions: DeviceSessionRepository { DeviceSessionRepository(database: database) }
    public var ownDeviceSessions: OwnDeviceSessionRepository { OwnDeviceSessionRepository(database: database) }
    /// Outgoing messages with their relay requests: the send path's writes.
    public var sendQueue: SendQueue { SendQueue(database: database) }

    /// Runs `body` in one transaction (batched writes); rolled back on a throw.
    /// Inside another transaction it is a savepoint: for a part whose failure
    /// the caller catches and carries on past, which must leave nothing behind.
    public func write<T>(durability: Database.Durability = .synced, _ body: (MessageStore) throws -> T) throws -> T {
        try database.transaction(durability: durability) { _ in try body(self) }
    }

    /// `write` that joins the transaction already open instead of nesting a
    /// savepoint in it (see `Database.withinTransaction`): for writes done
    /// once per message inside a batch. A throw inside the caller's
    /// transaction is the caller's to roll back.
    public func withinWrite<T>(_ body: (MessageStore) throws -> T) throws -> T {
        try database.withinTransaction { _ in try body(self) }
    }

    /// Makes the deferred writes durable (see `Database.syncDeferredCommits`).
    public func syncDeferredWrites() throws {
        try database.syncDeferredCommits()
    }

    /// Runs `action` after the open transaction commits (see `Database.afterCommit`).
    public func afterCommit(_ action: @escaping () -> Void) {
        database.afterCommit(action)
    }

    public func schemaVersion() throws -> Int { try database.schemaVersion() }
}
