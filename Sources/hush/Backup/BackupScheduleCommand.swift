import ArgumentParser
import Foundation
import HushKit

/// `hush backup schedule`: backups the daemon makes on its own.
struct BackupScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Show, set or remove the backup schedule that `hush daemon` runs.",
        discussion: """
            With --every, --to and --keep, the account keeps a schedule: while `hush daemon` runs, it \
            writes an archive into DIR (as `hush backup create` does) when the last scheduled one is \
            older than --every (at its start, then checking every minute), and deletes this schedule's \
            oldest archives beyond --keep. Only archives the schedule made are deleted: nothing else in \
            DIR. DIR must be an absolute path to a folder that exists; it is never made, so a drive that \
            is not plugged in fails the backup (recorded, shown here, tried again later) rather than \
            filling the system disk. Without a daemon nothing runs: the schedule waits for one.

            Alone, it shows the schedule, when the last backup was made and the next is due, and the last \
            failure. --off removes the schedule; the archives stay.

            Examples:
              hush backup schedule --every 24h --to /media/usb/hush --keep 7
              hush backup schedule
              hush backup schedule --off
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("How often: 1h to 30d, in whole hours, days or weeks (24h, 7d, 2w).", valueName: "DURATION"))
    var every: String?

    @Option(help: ArgumentHelp("The folder the archives go into (an absolute path that exists).", valueName: "DIR"))
    var to: String?

    @Option(help: ArgumentHelp("How many of the schedule's archives to keep (1 to 1000); older ones are deleted.", valueName: "N"))
    var keep: Int?

    @Flag(help: "Remove the schedule (the archives already made stay).")
    var off = false

    /// For tests of the schedule only: the interval in seconds, in place of --every's.
    @Option(name: .customLong("seconds"), help: .hidden) var seconds: Int64?

    func validate() throws {
        let setting = every != nil || seconds != nil || to != nil || keep != nil
        if off && setting { throw ValidationError("--off removes the schedule: give it alone, without --every, --to or --keep") }
        guard setting else { return }
        guard (every != nil || seconds != nil), to != nil, keep != nil else {
            throw ValidationError("a schedule needs --every, --to and --keep together, like --every 24h --to /media/usb/hush --keep 7")
        }
        if let every, BackupSchedule.interval(parsing: every) == nil {
            throw ValidationError("--every is 1h to 30d in whole hours, days or weeks, like 24h, 7d or 2w; got '\(every)'")
        }
        if let seconds, seconds < 1 { throw ValidationError("--seconds must be at least 1") }
        if let keep, !BackupSchedule.keeps.contains(keep) {
            throw ValidationError("--keep is how many archives to keep, 1 to \(BackupSchedule.keeps.upperBound); got \(keep)")
        }
        if let to, !to.hasPrefix("/") {
            throw ValidationError("--to must be an absolute path (the daemon runs the schedule from its own directory); got '\(to)'")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            defer { global.finished(with: account) }
            if off {
                let before = try await account.backupSchedule()
                try await account.setBackupSchedule(nil)
                if global.json { try printJSON(["scheduled": false]) } else {
                    print(before.map { "The backup schedule is removed; the archives it made stay in \($0.schedule.directory)." }
                          ?? "There was no backup schedule.")
                }
                return
            }
            if let to, let keep, let interval = seconds ?? every.flatMap(BackupSchedule.interval(parsing:)) {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: to, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw CommandError(.usage, "--to \(to) is not an existing folder: make it first (mkdir -m 700 \(to)), or plug in its drive")
                }
                try await account.setBackupSchedule(try BackupSchedule(every: interval, directory: to, keep: keep))
            }
            let daemon = HushAccount.holders(of: account.directory).first { $0.ownership == .exclusive }
            guard let status = try await account.backupSchedule() else {
                if global.json { try printJSON(["scheduled": false]) } else {
                    print("No backup schedule. `hush backup schedule --every 24h --to DIR --keep 7` sets one; `hush daemon` runs it.")
                }
                return
            }
            if global.json {
                try printJSON(Self.json(status, daemon: daemon))
            } else {
                Self.lines(status, daemon: daemon).forEach { print($0) }
            }
        }
    }

    /// What `hush backup restore` says of the schedule the archive held: not
    /// restored, since its folder was the old machine's, and how to set it again.
    static func notRestored(_ schedule: BackupSchedule) -> String {
        let units: [(Int64, String)] = [(604_800, "w"), (86_400, "d"), (3_600, "h")]
        let every = units.first { schedule.every % $0.0 == 0 }.map { "\(schedule.every / $0.0)\($0.1)" } ?? "24h"
        return "The backup schedule was not restored (every \(DisappearingTimer.duration(UInt32(clamping: schedule.every))) into "
            + "\(schedule.directory), a folder of the machine the backup was made on). Set it again for this one: "
            + "hush backup schedule --every \(every) --to DIR --keep \(schedule.keep)"
    }

    static func json(_ status: BackupScheduleStatus, daemon: HushAccount.Holder?) -> [String: Any] {
        func orNull(_ value: Any?) -> Any { value ?? NSNull() }
        let format: (Date) -> String = { ISO8601DateFormatter().string(from: $0) }
        return ["scheduled": true, "everySeconds": Int(status.schedule.every), "to": status.schedule.directory, "keep": status.schedule.keep,
                "lastSuccess": orNull(status.lastSuccess.map(format)), "lastArchive": orNull(status.lastArchive),
                "lastFailure": orNull(status.lastFailure.map(format)), "lastError": orNull(status.lastError),
                "nextBackup": format(max(status.nextBackup, Date())), "daemonPid": orNull(daemon.map { Int($0.pid) })]
    }

    static func lines(_ status: BackupScheduleStatus, daemon: HushAccount.Holder?) -> [String] {
        let schedule = status.schedule
        let format: (Date) -> String = { ISO8601DateFormatter().string(from: $0) }
        var lines = ["Backs up every \(DisappearingTimer.duration(UInt32(clamping: schedule.every))) into \(schedule.directory), "
                     + "keeping the \(schedule.keep) newest \(schedule.keep == 1 ? "archive" : "archives") it made."]
        if let success = status.lastSuccess {
            lines.append("Last backup:  " + format(success) + (status.lastArchive.map { " (\($0))" } ?? ""))
        } else {
            lines.append("Last backup:  none yet")
        }
        if let failure = status.lastFailure {
            lines.append("Last failure: \(format(failure)): \(status.lastError ?? "no reason recorded")")
        }
        let next = status.nextBackup
        if let daemon {
            lines.append("Next backup:  " + (next <= Date() ? "now (the daemon checks every minute)" : format(next)))
            lines.append("Run by:       the daemon, \(daemon.description)")
        } else {
            lines.append("Next backup:  when `hush daemon` runs" + (next <= Date() ? "" : ", from \(format(next))"))
            lines.append("Not running:  no daemon owns this account, and the schedule runs only while `hush daemon` runs.")
        }
        return lines
    }
}
