import Foundation
import HushCrypto
import HushKeystore
import HushMessenger
import HushProtocol
import HushRelayClient
import HushStore
import Synchronization

/// One account, unlocked: its identity, its encrypted store and its relay.
///
/// The account is a *lobby* (the conversation list, contacts, message
/// requests, groups) and opens a `Room` per conversation (history, sending,
/// files, typing). Everything it stores is encrypted at rest; everything it
/// sends is sealed before it is queued, so the relay only ever holds
/// ciphertext.
///
/// Open one `HushAccount` per directory and process. Call `close()` when done:
/// it stops the live connection and ends every event stream.
public final class HushAccount: Sendable {
    /// The directory the account lives in.
    public let directory: String
    /// The address (hush1…) to give contacts: it contains the identity key.
    public let address: String
    /// The identity key in groups of four hex digits, for reading aloud.
    public let fingerprint: String
    /// The relay this account uses, if it has one.
    public let relayURL: String?
    /// The key that opens this account's backups (show it to the user to
    /// write down), as it was when the account was opened: a key another
    /// device of the account hands over afterwards (after it revoked a
    /// device) seals the backups made from then on, and is this property
    /// when the account is opened again. Nil for a home made before
    /// recovery keys, until `recoveryKey(in:keys:)` makes one.
    public let recoveryKey: RecoveryKey?
    /// When the backup this account was restored from was made; nil when
    /// it was not restored from one.
    public let restoredFromBackupAt: Date?
    /// This home as a linked device of the account (`joinByLink`): its own
    /// key at the relay, and the account's certificate of it. Nil for the
    /// account's first device.
    let device: LocalDevice?
    /// Whether this home was a linked device of its account and lacks its
    /// device key (restored from a backup, which never holds one): it reads
    /// its history and uses no relay; what needs one fails with the reason
    /// and what to do (link a new home to use the machine as a device).
    public let lacksDeviceKey: Bool
    /// Whether this home is a device linked to the account (`joinByLink`),
    /// whose history up to `restoredFromBackupAt` was copied from the
    /// device that linked it, rather than restored from a backup.
    public var isLinkedDevice: Bool { device != nil }

    let messenger: Messenger
    let identity: IdentityKeyPair
    /// When the identity was made, and the store's key: what a backup made
    /// by the open account needs (it reads the store on a connection of its own).
    let identityCreatedAt: UInt64
    let databaseKey: SecureBytes
    /// Runs this account's backups one at a time, off the tasks serving it.
    let backups = BackupWorker()
    /// The relay and registration this account had before it was opened with
    /// another relay: `register()` puts them back when it fails there.
    private let replacedRelay: Mutex<RelaySettings?>
    struct RelaySettings: Sendable {
        let url: String?
        let registration: String?
        let sessionToken: String?
    }
    /// This process's hold on the directory, let go by `close()`.
    private let lock: HomeLock
    /// Publishes this process's events and, while live, those other processes on this home stored.
    private let fanIn = EventFanIn()
    var hub: EventHub<HushEvent> { fanIn.hub }
    /// The same events with their seqs, for `eventRecords(after:)`.
    var recordHub: EventHub<HushStreamedEvent> { fanIn.recordHub }
    private let running = Mutex<[Task<Void, Never>]>([])
    /// What the last `.connectionChanged` said, set before the event is
    /// published (see `isConnected`).
    private let connected = ConnectionFlag()
    /// The live connection's tasks, each with the name a stop that takes too
    /// long reports (`stopLiveAndWait(atMost:)`), and whether `close()` ran
    /// (nothing starts again after it).
    private let live = Mutex<(tasks: [NamedTask], closed: Bool)>(([], false))

    /// The name of the folder beside the database that holds encrypted files.
    static let attachmentDirectoryName = "attachments"

    /// Creates a new account in `directory` (made 0700 when missing): a new
    /// identity, a keystore sealed under `keys`, and an empty encrypted
    /// database. `displayName` (1 to 64 bytes) is the name contacts see: it is
    /// sealed to each accepted contact. With `relayURL` the account will use
    /// that relay; call `register()` to publish its keys there.
    ///
    /// With `replacingExisting`, an account already in the directory is
    /// replaced: its identity, and every message in its database, are lost
    /// for good.
    ///
    /// - Throws: `HushError` of kind `accountExists` when the directory
    ///   already holds one and `replacingExisting` is false (nothing is
    ///   changed), `unsafePermissions`, `storage` or `invalidInput`.
    public static func create(in directory: String, keys: KeyProvider, displayName: String? = nil,
                              relayURL: String? = nil, replacingExisting: Bool = false) async throws(HushError) -> HushAccount {
        try await translatingErrors {
            let home = DataDirectory(path: directory)
            let keystore = KeystoreFile(directory: home)
            if keystore.exists && !replacingExisting { throw KeystoreError.identityExists(path: keystore.path) }
            let displayName = try displayName.map { name throws(MessengerError) in try Messenger.checkedDisplayName(name) }
            try home.create()
            // Exclusive while the account is made: nothing else may use a home being replaced.
            let lock = try Self.lock(home, .exclusive)
            let generated = KeystoreContents.generate(createdAt: UInt64(Date().timeIntervalSince1970))
            let contents = KeystoreContents(identitySeed: generated.identitySeed, databaseKey: generated.databaseKey,
                                            createdAt: generated.createdAt,
                                            additional: [KeystoreContents.EntryType.recoveryKey: RecoveryKey.generate().bytes])
            try keys.create(keystore, holding: contents, replacing: replacingExisting)
            // A database left by an earlier account here was keyed by its keystore and is unreadable now.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: home.databasePath + suffix) }
            let store = try MessageStore(path: home.databasePath, key: contents.databaseKey)
            try store.settings.set(SettingsRepository.Name.displayName, to: displayName)
            try store.settings.set(SettingsRepository.Name.sharedDisplayName, to: displayName)
            try store.settings.set(SettingsRepository.Name.relayURL, to: relayURL)
            try home.checkPermissions()
            return try HushAccount(home: home, contents: contents, store: store, lock: lock)
        }
    }

    /// Opens the account in `directory` with `keys`, shared with other
    /// processes (see `open(in:keys:relayURL:ownership:)`). `relayURL`, when
    /// given, replaces the relay the account uses (and is remembered).
    ///
    /// - Throws: as `open(in:keys:relayURL:ownership:)`.
    public static func open(in directory: String, keys: KeyProvider, relayURL: String? = nil) async throws(HushError) -> HushAccount {
        try await open(in: directory, keys: keys, relayURL: relayURL, ownership: .shared)
    }

    /// Opens the account in `directory` with `keys`. `relayURL`, when given,
    /// replaces the relay the account uses (and is remembered).
    ///
    /// The directory is held in `ownership` until `close()`: `.shared` lets
    /// other processes open it too, `.exclusive` (a daemon) lets none. It is checked before the keys are used, so a directory
    /// owned by another process costs no unlock.
    ///
    /// - Throws: `HushError` of kind `noAccount`, `wrongKey`,
    ///   `unsafePermissions`, `damagedKeystore`, `keystoreTooNew`,
    ///   `databaseMissing`, `databaseUnusable`, or `homeInUse` (who holds
    ///   it: `holders(of:)`).
    public static func open(in directory: String, keys: KeyProvider, relayURL: String? = nil,
                            ownership: Ownership) async throws(HushError) -> HushAccount {
        try await translatingErrors {
            let (home, _, lock, contents) = try unlockHome(directory, keys: keys, ownership == .exclusive ? .exclusive : .shared)
            return try await opened(home, contents: contents, lock: lock, relayURL: relayURL)
        }
    }

    /// The account in `home`, its keystore's `contents` known (unlocked, or
    /// just written by a restore) and its directory held by `lock`: the store
    /// opened, and messages whose disappearing timer ran out while the
    /// account was closed deleted first.
    static func opened(_ home: DataDirectory, contents: KeystoreContents, lock: HomeLock, relayURL: String? = nil) async throws -> HushAccount {
        let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
        var replaced: RelaySettings?
        let before = RelaySettings(url: try store.settings.value(SettingsRepository.Name.relayURL),
                                   registration: try store.settings.value(SettingsRepository.Name.registration),
                                   sessionToken: try store.settings.value(SettingsRepository.Name.sessionToken))
        if let relayURL, relayURL != before.url {
            // Registered with the old relay is not registered with this one (`whoami` said so before),
            // and the old relay's login token is never shown to another.
            try store.write { store in
                try store.settings.set(SettingsRepository.Name.relayURL, to: relayURL)
                try store.settings.set(SettingsRepository.Name.registration, to: nil)
                try store.settings.set(SettingsRepository.Name.sessionToken, to: nil)
            }
            replaced = before
        }
        let account = try HushAccount(home: home, contents: contents, store: store, lock: lock, replacedRelay: replaced)
        await account.messenger.sweepExpired()
        return account
    }

    /// Opens the account in `directory` with a new, empty database in place
    /// of one that is missing or empty (a backup restored without it, say).
    /// The identity stays; contacts, conversations and sessions are gone, so
    /// contacts must be added again. A database that holds data is never
    /// replaced.
    ///
    /// - Throws: `HushError` of kind `invalidInput` when the database holds
    ///   data (nothing is changed); otherwise as `open(in:keys:relayURL:)`.
    public static func openWithNewDatabase(in directory: String, keys: KeyProvider,
                                           relayURL: String? = nil) async throws(HushError) -> HushAccount {
        try await translatingErrors {
            let home = DataDirectory(path: directory)
            let lock = try Self.lock(home, .exclusive)
            let contents = try keys.unlock(KeystoreFile(directory: home))
            do {
                _ = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
            } catch StoreError.databaseMissing {
                // An empty file, or SQLite's leftovers beside a missing one, are replaced.
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: home.databasePath + suffix) }
                let store = try MessageStore(path: home.databasePath, key: contents.databaseKey)
                if let relayURL { try store.settings.set(SettingsRepository.Name.relayURL, to: relayURL) }
                return try HushAccount(home: home, contents: contents, store: store, lock: lock)
            }
            throw HushError(.invalidInput, reason: "the database exists and holds data: it is never replaced by an empty one")
        }
    }

    /// Whether `directory` holds an account (its keystore), without
    /// unlocking anything: for an app that asks for a new passphrase only
    /// when there is no account yet.
    public static func exists(in directory: String) -> Bool {
        KeystoreFile(directory: DataDirectory(path: directory)).exists
    }

    /// Checks that the directory and every file in it are the current
    /// user's alone (owned by them, closed to others), without unlocking
    /// anything: an app can refuse before it asks for a passphrase. Opening
    /// checks it too.
    ///
    /// - Throws: `HushError` of kind `unsafePermissions` (what to change is
    ///   in its reason), `noAccount` when the directory does not exist, or
    ///   `storage` when it cannot be inspected.
    public static func checkPermissions(in directory: String) throws(HushError) {
        do {
            try DataDirectory(path: directory).checkPermissions()
        } catch {
            throw HushError(wrapping: error)
        }
    }

    /// The name of the keystore file in an account's directory.
    public static let keystoreFileName = DataDirectory.keystoreName
    /// The name of the encrypted database file in an account's directory
    /// (with SQLite's `-wal` and `-shm` files beside it).
    public static let databaseFileName = DataDirectory.databaseName

    private init(home: DataDirectory, contents: KeystoreContents, store: sending MessageStore, lock: HomeLock,
                 replacedRelay: RelaySettings? = nil) throws {
        self.lock = lock
        self.replacedRelay = Mutex(replacedRelay)
        let account = try IdentityKeyPair(seed: contents.identitySeed)
        identity = account
        identityCreatedAt = contents.createdAt
        databaseKey = contents.databaseKey
        let relayURL = try store.settings.value(SettingsRepository.Name.relayURL)
        restoredFromBackupAt = try store.settings.value(Self.restoredFromBackupSetting)
            .flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) }
        // A home linked before devices had keys at the relay becomes a device of its own now.
        if try store.settings.value(Self.earlierLinkedDeviceSetting) != nil { try Self.makeLinkedDevice(store) }
        let isLinkedDevice = try store.settings.value(Self.linkedDeviceSetting) != nil
        device = try Self.linkedDevice(contents, store: store, account: account)
        recoveryKey = try Self.newestRecoveryKey(of: contents, store: store)
        // A linked device's home without its device key (restored from a backup, which never holds
        // it): with the account key at the relay it would take the first device's messages.
        lacksDeviceKey = isLinkedDevice && device == nil
        let transport: any RelayTransport = lacksDeviceKey ? NoRelayTransport(reason: Self.deviceKeyMissing.reason)
            : relayURL.map { RelayClientTransport(client: RelayClient(baseURL: $0)) }
            ?? NoRelayTransport(reason: "this account has no relay: open it with a relay URL")
        messenger = Messenger(identity: identity, device: device, store: store, transport: transport,
                              attachmentDirectory: home.file(HushAccount.attachmentDirectoryName))
        directory = home.path
        address = identity.address.description
        fingerprint = IdentityFingerprint.of(publicKey: identity.publicKey.rawRepresentation)
        self.relayURL = relayURL
        // Subscribed here, before any operation can publish, so the first event is not lost.
        let events = messenger.eventRecords, fanIn = fanIn, connected = connected
        running.withLock {
            $0.append(Task {
                for await record in events {
                    if case let .connection(online) = record.event { connected.set(online) }
                    fanIn.publishOwn(record)
                }
            })
        }
    }

    /// Stops the live connection and the outbox retries, and ends every
    /// event stream. The account cannot be used afterwards.
    public func close() {
        for part in live.withLock({ live in
            live.closed = true
            defer { live.tasks.removeAll() }
            return live.tasks
        }) { part.task.cancel() }
        for task in running.withLock({ tasks in defer { tasks.removeAll() }; return tasks }) { task.cancel() }
        hub.finish()
        recordHub.finish()
        lock.release()
    }

    /// Closes the account as `close()` does, and returns once its live
    /// connection, outbox retries and event forwarding have ended, so nothing
    /// of the account is still writing when the caller goes on (or its
    /// process exits: a database write cut by the exit's clean-up of the
    /// crypto library could crash the process).
    public func closeAndWait() async {
        let stopping = live.withLock { $0.tasks.map(\.task) } + running.withLock { $0 }
        close()
        for task in stopping { await task.value }
    }

    // MARK: Relay

    /// Publishes the identity and prekeys to the account's relay (again, if
    /// it was registered before: the relay keeps one registration per identity).
    /// When the account was opened with a relay other than its own and the
    /// registration there fails, the account goes back to its own relay (and
    /// its registration there): a relay that cannot be reached is not
    /// where its messages should go.
    public func register() async throws(HushError) {
        guard !lacksDeviceKey else { throw Self.deviceKeyMissing }
        guard relayURL != nil else { throw Self.noRelay }
        do {
            try await guarded { try await messenger.register() }
            // Registered there: a later failure is not a reason to go back.
            replacedRelay.withLock { $0 = nil }
        } catch {
            if let replacedRelay = replacedRelay.withLock({ $0 }) {
                try? await messenger.setRelaySettings(url: replacedRelay.url, registration: replacedRelay.registration,
                                                      sessionToken: replacedRelay.sessionToken)
            }
            throw error
        }
    }

    /// Whether the account registered with its relay.
    public func isRegistered() async throws(HushError) -> Bool {
        try await guarded { try await messenger.isRegistered() }
    }

    /// When another home of this account's key (a backup restored
    /// elsewhere, or a copy of the directory) registered with the relay, as
    /// this home learned it at its last relay call; nil while this home is
    /// the one the relay serves. A replaced home fetches and sends nothing
    /// more (`HushError.Kind.homeReplaced`); its history stays readable.
    public func replacedAt() async -> Date? {
        await messenger.homeReplacedAt().map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// Once another home replaced this one (`replacedAt()`): the error every
    /// use of the relay here ends with (kind `.homeReplaced`: when, and how
    /// many messages sent from here since have no receipt), for a client that
    /// starts after the live connection reported it (`HushEvent.syncFailed`).
    /// Nil while the relay serves this home. Asks the relay nothing.
    public func replacement() async -> HushError? {
        await messenger.homeReplacement().map { HushError(wrapping: $0) }
    }

    /// Sends what the outbox holds, then fetches, decrypts and stores
    /// everything waiting at the relay. The relay is acknowledged only for
    /// what was stored.
    public func sync() async throws(HushError) -> SyncSummary {
        try await guarded {
            let report = try await messenger.sync()
            return SyncSummary(report, pendingRequests: try await messenger.messageRequests().count)
        }
    }

    /// Keeps a live connection to the relay (messages arrive as they are
    /// sent, reconnecting with backoff), retries the outbox and downloads
    /// received files within the automatic-download limit as they arrive, until
    /// `stopLive()` or `close()`. Calling it while live, or after `close()`,
    /// does nothing.
    public func startLive() {
        let messenger = messenger
        live.withLock { live in
            guard live.tasks.isEmpty, !live.closed else { return }
            let fanIn = fanIn
            live.tasks = [NamedTask("the relay connection") { await messenger.runLive() },
                          NamedTask("the outbox retries") { await messenger.runOutboxRetries() },
                          NamedTask("the automatic downloads") { await messenger.runAutoDownloads() },
                          NamedTask("the event follower") {
                              await fanIn.follow(messenger, clock: { Milliseconds(Date().timeIntervalSince1970 * 1_000) })
                          }]
        }
    }

    /// Ends the live connection and the outbox retries.
    public func stopLive() {
        for part in live.withLock({ live in defer { live.tasks.removeAll() }; return live.tasks }) { part.task.cancel() }
    }

    /// Ends the live connection and the outbox retries, and returns once
    /// they stopped: a write they were in the middle of is finished.
    public func stopLiveAndWait() async {
        let stopping = live.withLock { live in defer { live.tasks.removeAll() }; return live.tasks }
        for part in stopping { part.task.cancel() }
        for part in stopping { await part.task.value }
    }

    /// `stopLiveAndWait()`, waiting at most `limit`: returns the names of
    /// the live connection's parts that had not stopped by then ("the relay
    /// connection", "the outbox retries", …), none when every part did. A
    /// process that must end anyway (a command's timeout, a service being
    /// stopped) can then say what did not stop, and end without its exit
    /// clean-up (`_exit`), which could race a write still running: what that
    /// write had not committed is rolled back by the database, and nothing
    /// was acknowledged to the relay before it was stored.
    public func stopLiveAndWait(atMost limit: Duration) async -> [String] {
        let stopping = live.withLock { live in defer { live.tasks.removeAll() }; return live.tasks }
        for part in stopping { part.task.cancel() }
        return await NamedTask.namesStillRunning(stopping, after: limit)
    }

    /// `guarded`, for what writes to contacts: a linked device's home
    /// without its device key says why it cannot (`deviceKeyMissing`)
    /// before anything is sealed, rather than as a session it lacks.
    func guardedWrite<T>(_ body: () async throws -> T) async throws(HushError) -> T {
        guard !lacksDeviceKey else { throw Self.deviceKeyMissing }
        return try await guarded(body)
    }

    /// Runs `body` as `translatingErrors` does, and tells an account that has
    /// no relay so (`notRegistered`) rather than as a relay that failed.
    func guarded<T>(_ body: () async throws -> T) async throws(HushError) -> T {
        do {
            return try await translatingErrors(body)
        } catch where lacksDeviceKey && error.kind == .relayUnavailable {
            throw Self.deviceKeyMissing
        } catch where relayURL == nil && error.kind == .relayUnavailable {
            throw Self.noRelay
        }
    }

    private static let noRelay = HushError(.notRegistered, reason: "this account has no relay", suggestion: "open it with a relay URL")

    // MARK: Events

    /// A new stream of every event from now on, for this subscriber alone.
    /// One that falls behind gets `.missed(count:)` before the next event it
    /// can take, never a silent gap. The stream ends at `close()`, or when
    /// the subscriber stops iterating. While the account is live
    /// (`startLive()`), it also carries, once each and within a fraction of
    /// a second, the durable events other processes using the same home
    /// stored (another `hush listen` or `hush chat`, a `hush sync`).
    public func events() -> AsyncStream<HushEvent> { hub.subscribe() }

    /// Whether the live connection to the relay is up, as the last
    /// `.connectionChanged` event said (false before the first). It changes
    /// before that event is published, so a client that subscribes to
    /// events first and reads this second misses no change: one made before
    /// it subscribed is in this value, one made after comes as an event.
    public var isConnected: Bool { connected.value }
}

/// A flag shared by reference with the task that forwards events.
private final class ConnectionFlag: Sendable {
    private let flag = Mutex(false)
    var value: Bool { flag.withLock { $0 } }
    func set(_ value: Bool) { flag.withLock { $0 = value } }
}
