import Foundation
@testable import HushKit
import Testing

/// `hush backup schedule`'s rules in HushKit: the intervals people write,
/// what a schedule refuses, and which file names pruning may ever delete.
@Suite struct BackupScheduleRuleTests {
    @Test func intervalsAreWholeHoursDaysOrWeeksFromOneHourToThirtyDays() {
        #expect(BackupSchedule.interval(parsing: "24h") == 86_400)
        #expect(BackupSchedule.interval(parsing: "1h") == 3_600)
        #expect(BackupSchedule.interval(parsing: "30d") == Int64(2_592_000))
        #expect(BackupSchedule.interval(parsing: "2w") == Int64(1_209_600))
        for refused in ["0", "0h", "", "h", "59m", "31d", "5w", "-1h", "+1h", "1.5h", "1H", " 1h", "1d ", "99999999999999999999h", "١h"] {
            #expect(BackupSchedule.interval(parsing: refused) == nil, "\(refused)")
        }
    }

    @Test func aScheduleRefusesNoIntervalNoKeepAndARelativeFolder() throws {
        #expect(throws: HushError.self) { try BackupSchedule(every: 0, directory: "/backups", keep: 2) }
        #expect(throws: HushError.self) { try BackupSchedule(every: 3_600, directory: "/backups", keep: 0) }
        #expect(throws: HushError.self) { try BackupSchedule(every: 3_600, directory: "/backups", keep: 1_001) }
        #expect(throws: HushError.self) { try BackupSchedule(every: 3_600, directory: "backups", keep: 2) }
        #expect(try BackupSchedule(every: 3_600, directory: "/backups/", keep: 2).directory == "/backups")
    }

    @Test func onlyArchiveNamesArePrunable() {
        #expect(HushAccount.isArchiveName("hush-backup-20261126T040000Z.hushbackup"))
        for other in ["notes.txt", "hush-backup-20261126T040000Z.hushbackup.bak", ".hush-backup-20261126T040000Z.hushbackup.a1b2.partial",
                      "hush-backup-2026112T040000Z.hushbackup", "hush-backup-20261126X040000Z.hushbackup", "hush-backup-../../etc/Z.hushbackup"] {
            #expect(!HushAccount.isArchiveName(other), "\(other)")
        }
    }

    @Test func theNextBackupComesEveryIntervalAndAFailureWaitsBeforeTheRetry() throws {
        let schedule = try BackupSchedule(every: 86_400, directory: "/backups", keep: 2)
        let made = Date(timeIntervalSince1970: 1_000_000)
        let never = BackupScheduleStatus(schedule: schedule, lastSuccess: nil, lastArchive: nil, lastFailure: nil, lastError: nil)
        #expect(never.nextBackup <= Date())
        let done = BackupScheduleStatus(schedule: schedule, lastSuccess: made, lastArchive: nil, lastFailure: nil, lastError: nil)
        #expect(done.nextBackup == made.addingTimeInterval(86_400))
        let failed = BackupScheduleStatus(schedule: schedule, lastSuccess: made, lastArchive: nil,
                                          lastFailure: made.addingTimeInterval(86_500), lastError: "full")
        #expect(failed.nextBackup == made.addingTimeInterval(86_500 + 600))
    }
}
