import Foundation
import HushDatabase
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The backup schedule (`hush backup schedule`): kept in the store's
/// settings, run by a daemon (`runScheduledBackupIfDue`).
extension HushAccount {
    /// The settings a schedule is kept under.
    enum BackupScheduleSetting {
        static let every = "backup.schedule.every_seconds"
        static let directory = "backup.schedule.to"
        static let keep = "backup.schedule.keep"
        /// The archives this schedule made and still keeps, by file name, oldest first, one a line.
        static let archives = "backup.schedule.archives"
        /// Milliseconds since 1970.
        static let lastSuccess = "backup.schedule.last_success"
        static let lastFailure = "backup.schedule.last_failure"
        static let lastError = "backup.schedule.last_error"
        static let all = [every, directory, keep, archives, lastSuccess, lastFailure, lastError]
        static let history = [archives, lastSuccess, lastFailure, lastError]
    }

    /// The backup schedule and what became of it, or nil when there is none.
    public func backupSchedule() async throws(HushError) -> BackupScheduleStatus? {
        try await translatingErrors { try await readBackupSchedule()?.status }
    }

    /// Sets the backup schedule (nil: removes it; archives stay where they
    /// are). A schedule for the folder of the one before keeps its history
    /// (which archives it made, when it last ran); another folder starts anew.
    public func setBackupSchedule(_ schedule: BackupSchedule?) async throws(HushError) {
        try await translatingErrors {
            var values: [String: String?] = [:]
            guard let schedule else {
                for name in BackupScheduleSetting.all { values[name] = .some(nil) }
                return try await messenger.setSettings(values)
            }
            if try await readBackupSchedule()?.status.schedule.directory != schedule.directory {
                for name in BackupScheduleSetting.history { values[name] = .some(nil) }
            }
            values[BackupScheduleSetting.every] = String(schedule.every)
            values[BackupScheduleSetting.directory] = schedule.directory
            values[BackupScheduleSetting.keep] = String(schedule.keep)
            try await messenger.setSettings(values)
        }
    }

    /// Makes the scheduled backup when it is due (`BackupScheduleStatus.nextBackup`
    /// has come): an archive into the schedule's folder by `createBackup(to:)`,
    /// then the schedule's oldest archives beyond `keep` are deleted (only
    /// those it made, by name; nothing else in the folder). The success or
    /// the failure is recorded for `backupSchedule()`. Returns nil when there
    /// is no schedule or it is not due.
    ///
    /// - Throws: `HushError` only when the store cannot be read or written;
    ///   a failed backup is the `.failed` outcome.
    public func runScheduledBackupIfDue(now: Date = Date()) async throws(HushError) -> ScheduledBackupOutcome? {
        try await translatingErrors {
            guard let found = try await readBackupSchedule(), found.status.nextBackup <= now else { return nil }
            let schedule = found.status.schedule
            let summary: BackupSummary
            do {
                summary = try await createBackup(to: schedule.directory, creatingFolder: false)
            } catch {
                let error = HushError(wrapping: error)
                try await messenger.setSettings([
                    BackupScheduleSetting.lastFailure: String(Self.milliseconds(Date())),
                    BackupScheduleSetting.lastError: error.description,
                ])
                return .failed(error)
            }
            // The schedule changed or was removed while the archive was written: its history is not this one's.
            guard try await messenger.settings([BackupScheduleSetting.directory])[BackupScheduleSetting.directory] == schedule.directory else {
                return .made(summary, removed: [], pruneError: nil)
            }
            // A name made again (the clock went back) was replaced by this archive: listed
            // twice, the older entry would have the new archive deleted as the oldest.
            let made = (summary.path as NSString).lastPathComponent
            var kept = found.archives.filter { $0 != made } + [made]
            var removed: [String] = []
            var pruneError: String?
            while kept.count > schedule.keep {
                let name = kept[0]
                do {
                    try Self.removeScheduledArchive(named: name, in: schedule.directory)
                    removed.append(schedule.directory + "/" + name)
                    kept.removeFirst()
                } catch {
                    pruneError = "could not delete the old archive \(schedule.directory)/\(name): \(error)"
                    break
                }
            }
            try await messenger.setSettings([
                BackupScheduleSetting.archives: kept.joined(separator: "\n"),
                BackupScheduleSetting.lastSuccess: String(Self.milliseconds(summary.createdAt)),
                BackupScheduleSetting.lastFailure: nil,
                BackupScheduleSetting.lastError: nil,
            ])
            return .made(summary, removed: removed, pruneError: pruneError)
        }
    }

    /// Deletes one archive the schedule made, only when its name is an
    /// archive's and it is a regular file; one already gone counts as deleted.
    static func removeScheduledArchive(named name: String, in directory: String) throws {
        guard isArchiveName(name) else { return }
        let path = directory + "/" + name
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw HushError(.storage, reason: "could not inspect \(path) (errno \(errno))")
        }
        guard (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFREG) else { return }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw HushError(.storage, reason: "could not delete \(path) (errno \(errno))", suggestion: "check that the folder is writable")
        }
    }

    /// Whether `name` is one `backup create` gives an archive:
    /// hush-backup-YYYYMMDDTHHMMSSZ.hushbackup.
    static func isArchiveName(_ name: String) -> Bool {
        let prefix = "hush-backup-", suffix = "Z.hushbackup"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return false }
        let stamp = Array(name.dropFirst(prefix.count).dropLast(suffix.count))
        return stamp.count == 15 && stamp[8] == "T"
            && stamp.enumerated().allSatisfy { $0.offset == 8 || ($0.element.isASCII && $0.element.isNumber) }
    }

    private func readBackupSchedule() async throws -> (status: BackupScheduleStatus, archives: [String])? {
        let values = try await messenger.settings(BackupScheduleSetting.all)
        guard let every = values[BackupScheduleSetting.every].flatMap({ Int64($0) }),
              let directory = values[BackupScheduleSetting.directory],
              let keep = values[BackupScheduleSetting.keep].flatMap({ Int($0) }) else { return nil }
        let schedule = try BackupSchedule(every: every, directory: directory, keep: keep)
        let date: (String) -> Date? = { name in
            values[name].flatMap { Int64($0) }.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        }
        let archives = values[BackupScheduleSetting.archives].map { $0.split(separator: "\n").map(String.init) } ?? []
        let status = BackupScheduleStatus(schedule: schedule, lastSuccess: date(BackupScheduleSetting.lastSuccess),
                                          lastArchive: archives.last.map { directory + "/" + $0 },
                                          lastFailure: date(BackupScheduleSetting.lastFailure),
                                          lastError: values[BackupScheduleSetting.lastError])
        return (status, archives)
    }

    /// Removes the backup schedule from a store being restored, and returns
    /// it (nil when there was none): a restore is most often on another
    /// machine, where the schedule's folder is another disk, or none, and the
    /// new home's daemon would write archives into whatever is mounted there.
    /// Its history (which archives it made) goes with it, so a schedule set
    /// again never prunes archives the old one made.
    static func removeBackupSchedule(from database: Database) throws -> BackupSchedule? {
        let names = BackupScheduleSetting.all
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        var values: [String: String] = [:]
        for (name, value) in try database.query("SELECT name, value FROM settings WHERE name IN (\(placeholders))", names,
                                                { (try $0[0] as String, try $0[1] as String) }) {
            values[name] = value
        }
        try database.execute("DELETE FROM settings WHERE name IN (\(placeholders))", names)
        guard let every = values[BackupScheduleSetting.every].flatMap({ Int64($0) }), let directory = values[BackupScheduleSetting.directory],
              let keep = values[BackupScheduleSetting.keep].flatMap({ Int($0) }) else { return nil }
        return try? BackupSchedule(every: every, directory: directory, keep: keep)
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
