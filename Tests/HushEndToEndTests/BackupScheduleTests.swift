import Foundation
import Glibc
import Testing

/// `hush backup schedule` (issue 32): the account keeps the schedule, a real
/// `hush daemon` makes the archives, keeps the newest N it made and nothing
/// else, and records a failure without stopping.
@Suite struct BackupScheduleTests {
    /// The archives named in the daemon's "scheduled backup written to PATH (" lines, in order.
    static func written(_ daemon: ChildProcess) -> [String] {
        daemon.stderr.components(separatedBy: "\n").compactMap { line in
            guard let start = line.range(of: "scheduled backup written to ")?.upperBound,
                  let end = line.range(of: " (", range: start..<line.endIndex)?.lowerBound else { return nil }
            return String(line[start..<end])
        }
    }

    static func archives(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("hush-backup-") }.sorted()
    }

    /// A restore leaves the schedule behind: on a new machine its folder is
    /// another disk, or none, and the new home's daemon would write archives
    /// into whatever is mounted at the old path. The restore says so, with
    /// the command that sets it again; the restored home has no schedule.
    @Test func aRestoreLeavesTheScheduleBehindAndSaysHowToSetItAgain() throws {
        let bed = try Testbed("backup-schedule-restore")
        let alice = try bed.newUser("alice")
        let key = try BackupTests.recoveryKey(bed, alice)
        let folder = bed.root + "/scheduled"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try bed.succeed(alice, ["backup", "schedule", "--every", "7d", "--to", folder, "--keep", "3"])
        let archive = try BackupTests.backup(bed, alice)
        try FileManager.default.createDirectory(atPath: bed.root + "/new-machine", withIntermediateDirectories: true)

        let home = bed.root + "/new-machine/alice"
        let restored = try bed.hush(nil, ["backup", "restore", archive, "--home", home], environment: ["HUSH_RECOVERY_KEY": key])
        #expect(restored.status == 0, "\(restored)")
        #expect(restored.stdout.contains("The backup schedule was not restored (every 1 week into \(folder),")
                && restored.stdout.contains("hush backup schedule --every 1w --to DIR --keep 3"), "\(restored)")
        let restoredAlice = User(name: "alice", home: home, address: alice.address, identityKey: alice.identityKey)
        #expect(try bed.succeed(restoredAlice, ["backup", "schedule", "--json"]).json()["scheduled"] as? Bool == false)

        let json = try BackupTests.restore(bed, archive, home: bed.root + "/new-machine/alice-again", key: key)
        let left = try #require(try json.json()["scheduleNotRestored"] as? [String: Any], "\(json)")
        #expect(left["to"] as? String == folder && left["keep"] as? Int == 3 && left["everySeconds"] as? Int == 7 * 86_400, "\(left)")
        // The account backed up keeps its schedule.
        #expect(try bed.succeed(alice, ["backup", "schedule", "--json"]).json()["to"] as? String == folder)
    }

    @Test func theDaemonBacksUpOnScheduleKeepsTheNewestItMadeAndOutlivesAFailure() throws {
        let bed = try Testbed("backup-schedule")
        let alice = try bed.newUser("alice")
        let key = try BackupTests.recoveryKey(bed, alice)
        let folder = bed.root + "/scheduled"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data("mine, not hush's".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))

        // Bad input: each a clear error, a non-zero exit, and no schedule.
        for (arguments, expected) in [(["--every", "0", "--to", folder, "--keep", "2"], "--every is 1h to 30d"),
                                      (["--every", "31d", "--to", folder, "--keep", "2"], "--every is 1h to 30d"),
                                      (["--every", "24h", "--to", folder, "--keep", "0"], "--keep is how many archives to keep, 1 to 1000"),
                                      (["--every", "24h", "--to", "scheduled", "--keep", "2"], "--to must be an absolute path"),
                                      (["--every", "24h", "--to", bed.root + "/missing", "--keep", "2"], "is not an existing folder"),
                                      (["--every", "24h", "--to", folder], "needs --every, --to and --keep together"),
                                      (["--off", "--keep", "2"], "give it alone")] {
            let result = try bed.hush(alice, ["backup", "schedule"] + arguments)
            #expect(result.status != 0 && !result.signalled && result.stderr.contains(expected), "\(result)")
        }
        #expect(try bed.succeed(alice, ["backup", "schedule", "--json"]).json()["scheduled"] as? Bool == false)

        // Set without a daemon: kept, and said not to run.
        let set = try bed.succeed(alice, ["backup", "schedule", "--seconds", "1", "--to", folder, "--keep", "2"])
        #expect(set.stdout.contains("keeping the 2 newest archives it made")
                && set.stdout.contains("the schedule runs only while `hush daemon` runs"), "\(set)")

        let daemon = try DaemonTests.startDaemon(bed, alice)
        // `backup create` beside the daemon goes through it (no passphrase), one backup at a time with the schedule's.
        let manual = try bed.hush(alice, ["backup", "create", "--to", folder, "--json"], environment: DaemonTests.noPassphrase)
        #expect(manual.status == 0, "\(manual)")
        let manualArchive = try #require(try manual.json()["path"] as? String)
        let madeThree = daemon.wait(timeout: 60) { Self.written($0).count >= 4 }
        let shown = try bed.hush(alice, ["backup", "schedule", "--json"], environment: DaemonTests.noPassphrase)
        daemon.signal(SIGTERM)
        let stopped = daemon.finish(timeout: 30)
        #expect(madeThree && stopped.status == 0 && !stopped.signalled, "\(stopped)")
        #expect(stopped.stderr.contains("deleted 1 older archive"), "\(stopped)")
        let shownObject = try shown.json()
        #expect(shownObject["daemonPid"] as? Int != nil && shownObject["lastSuccess"] as? String != nil, "\(shown)")

        // Exactly the two newest the schedule made; the manual archive and the other file are left alone.
        let written = Self.written(daemon)
        let newest = written.suffix(2).map { ($0 as NSString).lastPathComponent }
        #expect(try Self.archives(in: folder) == ([(manualArchive as NSString).lastPathComponent] + newest).sorted(), "\(written)")
        #expect(FileManager.default.fileExists(atPath: folder + "/notes.txt"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }.isEmpty)
        for archive in newest {
            let verified = try bed.hush(nil, ["backup", "verify", folder + "/" + archive, "--json"], environment: ["HUSH_RECOVERY_KEY": key])
            #expect(verified.status == 0 && (try? verified.json()["address"] as? String) == alice.address, "\(verified)")
        }

        // The folder is replaced by a plain file (a drive gone, an unwritable place even for root):
        // the failure is logged with what to do, recorded, retried later, and the daemon goes on serving.
        try FileManager.default.moveItem(atPath: folder, toPath: folder + ".moved")
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: folder))
        let again = try DaemonTests.startDaemon(bed, alice)
        defer { again.signal(SIGTERM); _ = again.finish(timeout: 30) }
        #expect(again.wait(timeout: 30) { $0.stderr.contains("the scheduled backup failed") }, "\(again.stderr)")
        #expect(again.stderr.contains("is not a folder: move that file away, or change the schedule's --to"), "\(again.stderr)")
        let report = try bed.hush(alice, ["backup", "schedule"], environment: DaemonTests.noPassphrase)
        #expect(report.status == 0 && report.stdout.contains("Last failure:") && report.stdout.contains("is not a folder")
                && report.stdout.contains("Run by:       the daemon"), "\(report)")
        let whoami = try bed.hush(alice, ["whoami", "--json"], environment: DaemonTests.noPassphrase)
        #expect(whoami.status == 0 && (try? whoami.json()["address"] as? String) == alice.address, "\(whoami)")

        // Put back, the next try succeeds and the failure is cleared.
        try FileManager.default.removeItem(atPath: folder)
        try FileManager.default.moveItem(atPath: folder + ".moved", toPath: folder)
        #expect(again.wait(timeout: 30) { Self.written($0).count >= 1 }, "\(again.stderr)")
        let failures = again.stderr.components(separatedBy: "the scheduled backup failed").count - 1
        #expect(failures >= 1 && failures < 20, "retried in a loop: \(again.stderr)")
        let cleared = try bed.hush(alice, ["backup", "schedule", "--json"], environment: DaemonTests.noPassphrase).json()
        #expect(cleared["lastError"] is NSNull, "\(cleared)")

        // --off removes the schedule; the archives stay.
        let off = try bed.hush(alice, ["backup", "schedule", "--off"], environment: DaemonTests.noPassphrase)
        #expect(off.status == 0 && off.stdout.contains("the archives it made stay in \(folder)"), "\(off)")
        #expect(try bed.hush(alice, ["backup", "schedule", "--json"], environment: DaemonTests.noPassphrase).json()["scheduled"] as? Bool == false)
        #expect(try Self.archives(in: folder).count >= 3)
    }
}
