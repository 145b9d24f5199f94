import Foundation

/// A backup the daemon makes on its own (`hush backup schedule`): every
/// `every` seconds an archive into `directory`, keeping the `keep` newest
/// archives the schedule made there.
public struct BackupSchedule: Sendable, Equatable {
    /// How often: seconds between backups (at least 1; people choose 1h to 30d).
    public let every: Int64
    /// The absolute path of the folder the archives go into.
    public let directory: String
    /// How many of the schedule's archives stay in `directory` (1 to 1000).
    public let keep: Int

    /// The intervals a person chooses from, in seconds: 1 hour to 30 days.
    public static let intervals: ClosedRange<Int64> = 3_600...(30 * 86_400)
    /// How many archives a schedule may keep.
    public static let keeps: ClosedRange<Int> = 1...1_000

    /// - Throws: `HushError` of kind `invalidInput` when `every` is under one
    ///   second, `keep` is outside `keeps`, or `directory` is not absolute.
    public init(every: Int64, directory: String, keep: Int) throws(HushError) {
        guard every >= 1 else {
            throw HushError(.invalidInput, reason: "a backup schedule's interval must be at least one second", suggestion: "give --every 1h to 30d")
        }
        guard Self.keeps.contains(keep) else {
            throw HushError(.invalidInput, reason: "--keep must be 1 to \(Self.keeps.upperBound); got \(keep)",
                            suggestion: "say how many archives to keep, like --keep 7")
        }
        guard directory.hasPrefix("/") else {
            throw HushError(.invalidInput, reason: "the backup folder must be an absolute path (it is used by the daemon, from any directory); got '\(directory)'",
                            suggestion: "give the whole path, like --to /media/usb/hush")
        }
        self.every = every
        // Without a trailing slash, so archive paths read cleanly.
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.keep = keep
    }

    /// The seconds of an interval written as a whole number of hours, days
    /// or weeks ("24h", "7d", "2w", as `hush disappear` writes its timers),
    /// or nil when `text` is not one or lies outside `intervals`.
    public static func interval(parsing text: String) -> Int64? {
        let units: [Character: Int64] = ["h": 3_600, "d": 86_400, "w": 604_800]
        guard let unit = text.last.flatMap({ units[$0] }), text.count > 1,
              text.dropLast().allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int64(text.dropLast()),
              count <= intervals.upperBound, intervals.contains(count * unit) else { return nil }
        return count * unit
    }
}

/// A schedule with what happened to it: when the last backup was made or
/// failed, and why it failed.
public struct BackupScheduleStatus: Sendable {
    /// The schedule as it was set.
    public let schedule: BackupSchedule
    /// When the schedule's last archive was made (its date), if ever.
    public let lastSuccess: Date?
    /// The path of that archive.
    public let lastArchive: String?
    /// When the last attempt failed, if it failed after the last success.
    public let lastFailure: Date?
    /// Why it failed, and what to do.
    public let lastError: String?

    /// When the daemon makes the next backup: `every` after the last one, or
    /// at once (its next check) when there was none; after a failure, not
    /// before `retryDelay` has passed.
    public var nextBackup: Date {
        var next = lastSuccess.map { $0.addingTimeInterval(Double(schedule.every)) } ?? .distantPast
        if let lastFailure { next = max(next, lastFailure.addingTimeInterval(Double(retryDelay))) }
        return next
    }

    /// How long after a failure the daemon tries again: the interval, or
    /// ten minutes when that is shorter (a full disk is not retried in a loop).
    public var retryDelay: Int64 { min(schedule.every, 600) }
}

/// What the daemon's check of a schedule did.
public enum ScheduledBackupOutcome: Sendable {
    /// An archive was made; `removed` are the older ones of the schedule that
    /// were deleted to keep `keep`; `pruneError` says why some could not be.
    case made(BackupSummary, removed: [String], pruneError: String?)
    /// The backup failed (recorded, tried again after `retryDelay`).
    case failed(HushError)
}
