import Foundation
import HushCrypto
import HushDatabase
import HushKeystore
import HushProtocol
import HushStore

/// Backups (docs/PROTOCOL.md §19): one encrypted archive of an account,
/// opened by its recovery key alone.
extension HushAccount {
    /// Tables never put in an archive: ratchet state. A restored account
    /// starts fresh sessions, because an old copy of a ratchet would reuse
    /// message keys its peers have already seen or moved past (§19.4); a
    /// large group's derived chains (`member_chains`, §18.4) likewise, and
    /// the restored member asks for a new state instead. And the recovery key
    /// a revocation made (§20.14): the archive is sealed under it, and the
    /// restored keystore holds the key that opened it.
    static let tablesLeftOutOfBackups: Set<String> = ["ratchet_sessions", "device_sessions", "skipped_message_keys", "sender_chains",
                                                              "member_chains", "own_device_sessions", "own_device_skipped_keys",
                                                              "account_recovery_key"]

    /// The settings name under which a restored store remembers the archive's
    /// date (milliseconds since 1970).
    static let restoredFromBackupSetting = SettingsRepository.Name.restoredFrom

    /// The recovery key of the account in `directory`, unlocked with `keys`.
    /// A home made before recovery keys gets one now (its keystore is
    /// re-written, sealed under the same key): `isNew` says so, and the user
    /// must write it down.
    ///
    /// - Throws: `HushError` as `open(in:keys:)` does for the keystore.
    public static func recoveryKey(in directory: String, keys: KeyProvider) async throws(HushError) -> (key: RecoveryKey, isNew: Bool) {
        try await translatingErrors {
            let (home, keystore, lock, contents) = try unlockHome(directory, keys: keys, .exclusive)
            defer { lock.release() }
            // A home whose message database is gone still shows the keystore's key: it may be what
            // restores the account.
            let store = FileManager.default.fileExists(atPath: home.databasePath)
                ? try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey) : nil
            if let existing = try store.map({ try newestRecoveryKey(of: contents, store: $0) }) ?? recoveryKey(of: contents) {
                return (existing, false)
            }
            let key = RecoveryKey.generate()
            var additional = contents.additional
            additional[KeystoreContents.EntryType.recoveryKey] = key.bytes
            try rewrite(keystore, keys: keys, adding: additional, to: contents)
            return (key, true)
        }
    }

    /// Seals `contents` again with `additional` as its additional entries,
    /// in place, at the cost the keystore has now (not the provider's
    /// default). The caller holds the home exclusively.
    static func rewrite(_ keystore: KeystoreFile, keys: KeyProvider, adding additional: [UInt16: SecureBytes],
                        to contents: KeystoreContents) throws {
        let updated = KeystoreContents(identitySeed: contents.identitySeed, databaseKey: contents.databaseKey,
                                       createdAt: contents.createdAt, additional: additional)
        var resealing = keys
        if case let .passphrase(passphrase, _) = keys.secret {
            resealing = KeyProvider(secret: .passphrase(passphrase, cost: try keystore.header().cost))
        }
        try resealing.create(keystore, holding: updated, replacing: true)
    }

    /// The recovery key a keystore holds, if it has one.
    static func recoveryKey(of contents: KeystoreContents) -> RecoveryKey? {
        guard let bytes = contents.additional[KeystoreContents.EntryType.recoveryKey], bytes.count == RecoveryKey.length else { return nil }
        return RecoveryKey(bytes: bytes)
    }

    /// The account's current recovery key: the one a revocation made (here,
    /// or on another device that handed it over, §20.14), which the store
    /// keeps, else the keystore's. A running client holds the store but not
    /// the passphrase, so a key handed over stays in the store (encrypted
    /// under the database key, itself sealed in the keystore).
    static func newestRecoveryKey(of contents: KeystoreContents, store: MessageStore) throws -> RecoveryKey? {
        if let kept = try store.recoveryKeys.current() { return RecoveryKey(bytes: kept.key) }
        return recoveryKey(of: contents)
    }

    /// Writes a backup archive of the account in `directory` into the folder
    /// `destination` (made when missing), encrypted under the account's
    /// recovery key: the identity, the store (contacts, conversations,
    /// messages, groups, settings, the outbox; no ratchet sessions) and every
    /// attachment file. It is written to a temporary file, renamed when
    /// complete, and read from one snapshot of the store, so other processes
    /// may use the account meanwhile. Memory stays flat: rows and files are
    /// streamed.
    ///
    /// - Throws: `HushError` of kind `keyUnavailable` when the account has no
    ///   recovery key yet (`recoveryKey(in:keys:)` makes one), `storage`, or
    ///   as `open(in:keys:)` does.
    public static func createBackup(of directory: String, keys: KeyProvider, to destination: String) async throws(HushError) -> BackupSummary {
        try await translatingErrors {
            let (home, _, lock, contents) = try unlockHome(directory, keys: keys, .shared)
            defer { lock.release() }
            let store = try MessageStore.openExisting(path: home.databasePath, key: contents.databaseKey)
            guard let recoveryKey = try newestRecoveryKey(of: contents, store: store) else { throw noRecoveryKey }
            return try writeBackup(of: home, databaseKey: contents.databaseKey, identity: try IdentityKeyPair(seed: contents.identitySeed),
                                   identityCreatedAt: contents.createdAt, recoveryKey: recoveryKey, to: destination)
        }
    }

    /// Writes a backup of this open account into `destination`, as
    /// `createBackup(of:keys:to:)` does for a closed one: what `hush backup
    /// create` does through a daemon, and the daemon's schedule. Backups of
    /// one account run one at a time, on a thread of their own, from a
    /// second connection's snapshot of the store, so the account goes on
    /// sending and receiving meanwhile.
    ///
    /// - Throws: as `createBackup(of:keys:to:)`.
    public func createBackup(to destination: String) async throws(HushError) -> BackupSummary {
        try await createBackup(to: destination, creatingFolder: true)
    }

    func createBackup(to destination: String, creatingFolder: Bool) async throws(HushError) -> BackupSummary {
        // A key another device handed over while this account was open is the newest (§20.14).
        let handedOver = try await guarded { try await messenger.keptRecoveryKey().map { RecoveryKey(bytes: $0.key) } }
        guard let recoveryKey = handedOver ?? recoveryKey else {
            // The key is made by `hush backup key`, which needs the account to itself; an open one learns it when reopened.
            throw HushError(.keyUnavailable, reason: "this account has no recovery key yet, so a backup could not be opened",
                            suggestion: "stop the daemon, run `hush backup key`, write the key down, and start the daemon again")
        }
        let home = DataDirectory(path: directory), databaseKey = databaseKey, identity = identity, createdAt = identityCreatedAt
        return try await translatingErrors {
            try await backups.run { now in
                if !creatingFolder { try Self.checkFolder(destination) }
                return try Self.writeBackup(of: home, databaseKey: databaseKey, identity: identity, identityCreatedAt: createdAt,
                                            recoveryKey: recoveryKey, to: destination, now: now)
            }
        }
    }

    /// The one way an archive is written, for a closed account and an open one.
    /// `blobsInTheClear`: false for an archive that travels through the
    /// relay (a device link, §20.6), which must not see the blobs it stores.
    static func writeBackup(of home: DataDirectory, databaseKey: SecureBytes, identity: IdentityKeyPair, identityCreatedAt: UInt64,
                            recoveryKey: RecoveryKey, to destination: String, now: Date = Date(),
                            blobsInTheClear: Bool = true) throws -> BackupSummary {
        let store = try MessageStore.openExisting(path: home.databasePath, key: databaseKey)
        var creation = BackupCreation(store: store, identity: identity, identityCreatedAt: identityCreatedAt,
                                      recoveryKey: recoveryKey, attachments: home.file(attachmentDirectoryName))
        creation.blobsInTheClear = blobsInTheClear
        return try creation.write(into: destination, now: now)
    }

    /// Refuses a folder that is missing or not a folder (an unplugged drive's).
    static func checkFolder(_ path: String) throws(HushError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw HushError(.storage, reason: "the backup folder \(path) does not exist (an unplugged drive?)",
                            suggestion: "make it or plug its drive in again, or change the schedule's --to")
        }
        guard isDirectory.boolValue else {
            throw HushError(.storage, reason: "the backup folder \(path) is not a folder",
                            suggestion: "move that file away, or change the schedule's --to")
        }
    }

    static let noRecoveryKey = HushError(.keyUnavailable, reason: "this account has no recovery key yet, so a backup could not be opened",
                                         suggestion: "run `hush backup key`, write the key down, then back up")

    /// Reads the whole archive at `path` with `recoveryKey`, checking the
    /// header's MAC, every record's authentication and contents, and the end
    /// record, and restores nothing.
    ///
    /// - Throws: `HushError` of kind `invalidInput` (the key does not open
    ///   this archive: a wrong key or another account's archive), `damagedFile`
    ///   (cut short, reordered, changed, or not an archive) or `notFound`.
    public static func verifyBackup(at path: String, recoveryKey: RecoveryKey) throws(HushError) -> BackupSummary {
        try BackupRestoration.read(path: path, recoveryKey: recoveryKey, into: nil).summary
    }

    /// Checks that `path` holds a Hush backup archive this version reads
    /// (its header's form and format version), without a key: what to check
    /// before asking the user for the recovery key.
    ///
    /// - Throws: `HushError` of kind `notFound`, `invalidInput` (a named
    ///   pipe, a device) or `damagedFile` (not an archive, cut short in its
    ///   header, or a format this version does not read).
    public static func checkBackupArchive(at path: String) throws(HushError) {
        try BackupReader.checkHeader(at: path)
    }

    /// Checks that `recoveryKey` opens the archive at `path` (its header's MAC)
    /// and reads nothing further: the quick check before a restore asks for a
    /// new passphrase. The restore itself checks every record as it goes.
    ///
    /// - Throws: as `verifyBackup(at:recoveryKey:)` for the header.
    public static func checkBackupKey(at path: String, recoveryKey: RecoveryKey) throws(HushError) {
        _ = try BackupReader(path: path, recoveryKey: recoveryKey)
    }

    /// Restores the archive at `path` into `directory`, which must not exist
    /// or be empty: the same identity (and address), a new keystore sealed
    /// under `keys` holding `recoveryKey`, a new store with the archive's
    /// rows, and the attachment files. Everything is written into a
    /// temporary folder beside `directory` and renamed at the end, so a
    /// failure leaves nothing behind. The restored account has no sessions:
    /// the first message to each contact starts a new one (§19.4), or
    /// `startMissingSessions()` starts them all.
    ///
    /// Returns what the archive held. To use the account right away, call
    /// `restoreBackupAndOpen(at:into:recoveryKey:keys:)` instead: opening it
    /// afterwards derives the keystore's key a second time.
    ///
    /// - Throws: `HushError` of kind `accountExists` when `directory` is not
    ///   empty, `invalidInput` when it is a file; otherwise as
    ///   `verifyBackup(at:recoveryKey:)`, or `storage`.
    public static func restoreBackup(at path: String, into directory: String, recoveryKey: RecoveryKey,
                                     keys: KeyProvider) async throws(HushError) -> BackupSummary {
        let (summary, account) = try await restoreBackupAndOpen(at: path, into: directory, recoveryKey: recoveryKey, keys: keys)
        await account.closeAndWait()
        return summary
    }

    /// Restores as `restoreBackup(at:into:recoveryKey:keys:)` does and
    /// returns the restored account too, open (as `open(in:keys:)` opens it,
    /// shared) with the keys the restore sealed: the new keystore is not
    /// unlocked again, as that would derive its key a second time (64 MiB or
    /// more of memory at once). Close it when done.
    ///
    /// - Throws: as `restoreBackup(at:into:recoveryKey:keys:)`.
    public static func restoreBackupAndOpen(at path: String, into directory: String, recoveryKey: RecoveryKey,
                                            keys: KeyProvider) async throws(HushError) -> (summary: BackupSummary, account: HushAccount) {
        try BackupRestoration.checkEmpty(directory)
        // Checks the key before the work (and the new passphrase's KDF) begins.
        try checkBackupKey(at: path, recoveryKey: recoveryKey)
        return try await translatingErrors {
            let restored = try BackupRestoration.restore(path: path, into: directory, recoveryKey: recoveryKey, keys: keys)
            do {
                let account = try await opened(DataDirectory(path: directory), contents: restored.keystore, lock: restored.lock)
                return (restored.summary, account)
            } catch {
                // The home is complete and in place: a retry of the restore would only be refused.
                let reason = (error as? HushError)?.reason ?? "\(error)"
                throw HushError(.storage, reason: "the backup was restored into \(directory), but the account could not be opened: \(reason)",
                                suggestion: "open it again (with the new passphrase); do not restore again")
            }
        }
    }

    /// Starts a session with every accepted contact that has none, from the
    /// relay's prekey bundles: what a restored account does first, since a
    /// backup holds no sessions (§19.4). Messages to a contact cannot be
    /// sealed until it ran. First, locally, a new sender chain for every
    /// group (a backup holds none), its distribution queued for the members
    /// and sent at the next sync. Returns how many sessions started.
    ///
    /// - Throws: `HushError` of kind `relayUnavailable` or `notRegistered`
    ///   (sessions started before the failure are kept; call it again).
    public func startMissingSessions() async throws(HushError) -> Int {
        try await startMissingSessions(replacingNewerHome: false)
    }

    /// `startMissingSessions()`, for a restored account not registered yet:
    /// `replacingNewerHome` registers it even when the relay holds a
    /// registration of the account made after the archive it was restored
    /// from (another home, restored since or registered again), which that
    /// cuts off; without it that is refused with `homeReplaced` and nothing
    /// changes (docs/PROTOCOL.md §19.4).
    public func startMissingSessions(replacingNewerHome: Bool) async throws(HushError) -> Int {
        try await guarded { try await messenger.startMissingSessions(replacingNewerHome: replacingNewerHome) }
    }
}
