import Foundation
import HushKit

/// The daemon's side of `hush backup schedule`: at its start and then at
/// each check, the scheduled backup is made when it is due. What happens is
/// said on the daemon's standard error; a failure is recorded by HushKit for
/// `hush backup schedule`, tried again later, and never stops the daemon.
enum BackupScheduler {
    /// The longest wait between two checks: a schedule set or changed while
    /// the daemon runs is seen within it.
    static let longestWait: Duration = .seconds(60)

    /// Checks until the task is cancelled (the daemon stops). A backup being
    /// written when it is cancelled is finished first.
    static func run(_ account: HushAccount, output: CommandOutput = .standard) async {
        while !Task.isCancelled {
            var wait = longestWait
            do {
                if let outcome = try await account.runScheduledBackupIfDue() { output.write(.stderr, describe(outcome)) }
                if let status = try await account.backupSchedule() {
                    let seconds = max(1, min(status.nextBackup.timeIntervalSinceNow, 60))
                    wait = .milliseconds(Int64((seconds * 1000).rounded(.up)))
                }
            } catch {
                output.write(.stderr, "hush daemon: could not read the backup schedule: \(error) (checked again in a minute)\n")
            }
            try? await Task.sleep(for: wait)
        }
    }

    static func describe(_ outcome: ScheduledBackupOutcome) -> String {
        switch outcome {
        case let .made(summary, removed, pruneError):
            var line = "hush daemon: scheduled backup written to \(summary.path) (\(summary.archiveBytes) bytes)"
            if !removed.isEmpty { line += "; deleted \(removed.count) older \(removed.count == 1 ? "archive" : "archives")" }
            if let pruneError { line += "; \(pruneError) (tried again after the next backup)" }
            return line + "\n"
        case let .failed(error):
            return "hush daemon: the scheduled backup failed: \(error). It is tried again later; `hush backup schedule` shows the last failure.\n"
        }
    }
}
