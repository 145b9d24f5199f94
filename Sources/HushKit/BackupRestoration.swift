import Foundation
import HushCrypto
import HushDatabase
import HushKeystore
import HushProtocol
import HushStore

/// Reads an archive record by record (§19.3) and, when restoring, writes
/// what each record holds into a new home. Verifying is the same walk with
/// nowhere to write, so both check exactly the same things.
enum BackupRestoration {
    /// Where a restore writes: a store and the attachment files, each
    /// filled on a thread of its own from what the reading thread hands over.
    final class Target {
        let rows: BackupRowLoader
        let attachments: String
        /// Every file reaches the disk before the home is renamed into place,
        /// synced while the next ones are written.
        let syncs = BackgroundFileSync()
        let files: RestoredFileWriter
        /// A file was begun and not closed yet.
        var fileOpen = false
        /// The files begun so far (the writing thread creates them later).
        var names: Set<String> = []

        /// Closes the file being written, if any.
        func finishFile() throws(HushError) {
            guard fileOpen else { return }
            fileOpen = false
            try files.close()
        }

        init(rows: BackupRowLoader, attachments: String) {
            self.rows = rows
            self.attachments = attachments
            files = RestoredFileWriter(syncs: syncs)
        }
    }

    /// The page cache of the store a restore writes, in KiB.
    static let restoreCacheKiB = 4 * 1024

    /// Refuses a home that exists and holds anything. `what` says what
    /// goes only into a new or empty folder.
    static func checkEmpty(_ directory: String, what: String = "a backup is only restored") throws(HushError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else { return }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? ["?"]
        guard isDirectory.boolValue else {
            // No account is there: not `accountExists` (the command line's "an identity exists", exit 15).
            throw HushError(.invalidInput, reason: "\(directory) is a file, not a folder: \(what) into a new or empty folder",
                            suggestion: "give another --home")
        }
        guard entries.isEmpty else {
            throw HushError(.accountExists, reason: "\(directory) is not empty: \(what) into a new or empty folder",
                            suggestion: "give another --home, or move that folder away first")
        }
    }

    /// What a restore leaves besides the home: what the archive held, the
    /// keys sealed into the new keystore, and the home's lock, taken before
    /// the home was renamed into place. With them the account is opened
    /// without unlocking the keystore just written: a second key derivation
    /// (64 MiB or more) on top of what the restore had allocated set a
    /// restore's peak memory.
    struct Restored {
        let summary: BackupSummary
        let keystore: KeystoreContents
        let lock: HomeLock
    }

    /// `keystoreSecrets`, when given, are the new keystore's additional
    /// entries in place of the archive's key (a linked device keeps the
    /// account's recovery key and its own device seed, not the link's
    /// archive key); `finishing` runs on the complete home before it is
    /// renamed into place, so what it writes is there or nothing is.
    static func restore(path: String, into directory: String, recoveryKey: RecoveryKey, keys: KeyProvider,
                        keystoreSecrets: [UInt16: SecureBytes]? = nil,
                        finishing: ((DataDirectory, KeystoreContents) throws -> Void)? = nil) throws -> Restored {
        let target = URL(fileURLWithPath: directory).standardizedFileURL.path
        let parent = (target as NSString).deletingLastPathComponent
        let temporary = parent + "/." + (target as NSString).lastPathComponent + "." + Hex.encode(SystemRandom().bytes(6)) + ".restoring"
        var complete = false
        defer { if !complete { removeUnfinished(temporary) } }
        let home = DataDirectory(path: temporary)
        try home.create()
        let (summary, keystore) = try read(path: path, recoveryKey: recoveryKey, into: (home, keys), keystoreSecrets: keystoreSecrets)
        guard let keystore else { throw HushError(.storage, reason: "the restore wrote no keystore") }
        try finishing?(home, keystore)
        // The lock file goes with the folder: the account is held from before it has its name.
        let lock = try HushAccount.lock(home, .shared)
        try home.checkPermissions()
        // rename(2) replaces an empty directory and refuses one that filled up meanwhile.
        guard rename(temporary, target) == 0 else {
            throw HushError(.accountExists, reason: "could not move the restored account into \(target) (errno \(errno)): is it still empty?",
                            suggestion: "nothing was restored there; give another --home")
        }
        complete = true
        return Restored(summary: summary, keystore: keystore, lock: lock)
    }

    /// Removes a restore that did not finish. Tried a few times: the
    /// store's last connection (a background checkpoint's, closed after
    /// the writer's) may still delete its log files while the folder is
    /// being emptied, and the removal then finds it not empty (seen once
    /// under load: a refused archive left its `.restoring` folder).
    private static func removeUnfinished(_ temporary: String) {
        for attempt in 0..<5 {
            do {
                try FileManager.default.removeItem(atPath: temporary)
                return
            } catch {
                guard FileManager.default.fileExists(atPath: temporary) else { return }
                usleep(UInt32(20_000 << attempt))
            }
        }
    }

    /// Walks the whole archive; with `restoring`, writes it into that home
    /// and returns what its keystore holds.
    static func read(path: String, recoveryKey: RecoveryKey,
                     into restoring: (home: DataDirectory, keys: KeyProvider)?,
                     keystoreSecrets: [UInt16: SecureBytes]? = nil) throws(HushError) -> (summary: BackupSummary, keystore: KeystoreContents?) {
        let reader = try BackupReader(path: path, recoveryKey: recoveryKey)
        do {
            return try walk(reader, path: path, recoveryKey: recoveryKey, restoring: restoring, keystoreSecrets: keystoreSecrets)
        } catch let error as HushError {
            throw error
        } catch {
            throw HushError(wrapping: error)
        }
    }

    private static func walk(_ reader: BackupReader, path: String, recoveryKey: RecoveryKey,
                             restoring: (home: DataDirectory, keys: KeyProvider)?,
                             keystoreSecrets: [UInt16: SecureBytes]?) throws -> (summary: BackupSummary, keystore: KeystoreContents?) {
        let headerKey = try IdentityKey(rawRepresentation: reader.header.identityKey)
        // The identity record comes first.
        guard let first = try reader.next(), first.type == .identity else {
            throw BackupArchive.damaged("it does not begin with the identity")
        }
        var identityBody = first.body
        let seed = SecureBytes(copying: try identityBody.take(IdentityKeyPair.seedLength), storage: .guarded)
        let identityCreatedAt = try identityBody.u64()
        try identityBody.finish()
        let identity = try IdentityKeyPair(seed: seed)
        guard identity.publicKey == headerKey else { throw BackupArchive.damaged("its identity is not the account its header names") }

        guard let second = try reader.next(), second.type == .database else {
            throw BackupArchive.damaged("the store's version does not follow the identity")
        }
        var databaseBody = second.body
        let schemaVersion = try databaseBody.u32()
        try databaseBody.finish()
        guard schemaVersion <= Schema.latestVersion else {
            throw HushError(.damagedFile, reason: "this backup was made by a newer hush (store version \(schemaVersion), this one knows \(Schema.latestVersion))",
                            suggestion: "restore it with a newer hush")
        }

        var target: Target?
        var keystore: KeystoreContents?
        if let restoring {
            let contents = KeystoreContents.generate(createdAt: identityCreatedAt)
            let restored = KeystoreContents(identitySeed: seed, databaseKey: contents.databaseKey, createdAt: identityCreatedAt,
                                            additional: keystoreSecrets ?? [KeystoreContents.EntryType.recoveryKey: recoveryKey.bytes])
            try restoring.keys.create(KeystoreFile(directory: restoring.home), holding: restored)
            keystore = restored
            let opened = try MessageStore(path: restoring.home.databasePath, key: restored.databaseKey)
            // The restore is one transaction that only appends: a store's 32 MiB read cache
            // would hold every page it dirties until the commit (a restore's peak memory
            // grew by that much). A small cache spills them to the WAL as it goes.
            try opened.database.execute("PRAGMA cache_size = -\(restoreCacheKiB)")
            let attachments = restoring.home.file(HushAccount.attachmentDirectoryName)
            guard mkdir(attachments, 0o700) == 0 else { throw HushError(.storage, reason: "could not create \(attachments) (errno \(errno))") }
            target = Target(rows: BackupRowLoader(database: opened.database), attachments: attachments)
        }

        // On a failure too, nothing is still syncing or inserting in the folder once the restore returns (and removes it):
        // the store's one transaction rolled back, its connection idle.
        defer {
            target?.rows.abandon()
            target?.files.abandon()
            try? target?.syncs.finish()
        }

        var rows: [String: Int] = [:]
        var files = 0
        var fileBytes: UInt64 = 0
        var scheduleNotRestored: BackupSchedule?
        func walkRecords() throws {
            var table: (name: String, columns: Int)?
            var file: (path: String, remaining: UInt64)?
            while let record = try reader.next() {
                let type = record.type
                var body = record.body
                if let open = file, open.remaining > 0, type != .fileData, type != .clearFileData {
                    throw BackupArchive.damaged("the file \(open.path) is cut short")
                }
                switch type {
                case .identity, .database:
                    throw BackupArchive.damaged("it holds a second \(type == .identity ? "identity" : "store version")")
                case .table:
                    let name = try body.string()
                    var columns: [String] = []
                    for _ in 0..<(try body.u16()) { columns.append(try body.string()) }
                    try body.finish()
                    guard !HushAccount.tablesLeftOutOfBackups.contains(name), rows[name] == nil else {
                        throw BackupArchive.damaged("it holds the table \(name) where it may not")
                    }
                    rows[name] = 0
                    table = (name, columns.count)
                    try target?.rows.beginTable(name, columns: columns)
                case .row:
                    guard let current = table else { throw BackupArchive.damaged("a row comes before its table") }
                    // Checked here when verifying; when restoring, by the loading thread as it inserts.
                    if let target { try target.rows.appendRow(body) } else { try BackupValue.readRow(from: &body, columns: current.columns, into: nil) }
                    rows[current.name, default: 0] += 1
                case .file:
                    // The store's derived parts are built while the files are written.
                    try target?.rows.endOfRows(createdAt: reader.header.createdAt)
                    let relative = try body.string()
                    let size = try body.u64()
                    try body.finish()
                    let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
                    guard !relative.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
                        throw BackupArchive.damaged("a file has a name that leaves its folder")
                    }
                    table = nil
                    file = (relative, size)
                    files += 1
                    fileBytes += size
                    if let target {
                        try target.finishFile()
                        let path = target.attachments + "/" + relative
                        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                        guard target.names.insert(relative).inserted, !FileManager.default.fileExists(atPath: path) else {
                            throw BackupArchive.damaged("it holds the file \(relative) twice")
                        }
                        try target.files.open(path)
                        target.fileOpen = true
                    }
                case .fileData, .clearFileData:
                    // Clear bytes are authenticated as their sealed record's associated data: checked as a sealed chunk is.
                    let bytes = body.rest
                    guard let open = file, UInt64(bytes.count) <= open.remaining, !bytes.isEmpty else {
                        throw BackupArchive.damaged("file bytes come where no file is open")
                    }
                    try target?.files.append(bytes)
                    file = (open.path, open.remaining - UInt64(bytes.count))
                case .end:
                    break // never returned by the reader
                }
            }
            if let open = file, open.remaining > 0 { throw BackupArchive.damaged("the file \(open.path) is cut short") }
            if let target {
                try target.finishFile()
                try target.files.finish()
                scheduleNotRestored = try target.rows.finish(createdAt: reader.header.createdAt)
            }
        }
        try walkRecords()
        // Every file on disk before the caller renames the home into place.
        try target?.syncs.finish()
        let archiveBytes = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
        let summary = BackupSummary(path: path, address: identity.address.description,
                                    createdAt: Date(timeIntervalSince1970: Double(reader.header.createdAt) / 1000),
                                    rowsByTable: rows, files: files, fileBytes: fileBytes, archiveBytes: archiveBytes,
                                    scheduleNotRestored: scheduleNotRestored, madeInReplacedHome: nil)
        return (summary, keystore)
    }
}
