import ArgumentParser
import Foundation
import HushKit

/// `hush backup`: encrypted archives of an account, opened by its recovery key.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the account into an encrypted archive, check one, or restore one.",
        discussion: """
            An archive holds the identity, contacts, conversations and messages, groups, settings, the \
            outbox and every attachment file, encrypted and authenticated under the account's recovery \
            key (made at `hush init`; `hush backup key` shows it). The recovery key alone restores the \
            account on a new machine: keep it apart from the archives. Ratchet sessions are not in it: a \
            restored account starts a new session with each contact at its first message.

            Examples:
              hush backup key
              hush backup create --to /media/usb/hush
              hush backup schedule --every 24h --to /media/usb/hush --keep 7   (made by `hush daemon`)
              hush backup verify /media/usb/hush/hush-backup-20261126T040000Z.hushbackup
              hush backup restore /media/usb/hush/hush-backup-20261126T040000Z.hushbackup --home ~/.hush
            """,
        subcommands: [BackupKeyCommand.self, BackupCreateCommand.self, BackupScheduleCommand.self, BackupVerifyCommand.self,
                      BackupRestoreCommand.self, BackupSessionsCommand.self])
}

/// The recovery key from `--recovery-key-file`, `HUSH_RECOVERY_KEY` or the terminal (no echo).
struct RecoveryKeyOptions: ParsableArguments {
    static let environmentVariable = SecretNaming.recoveryKey.variable

    @Option(help: ArgumentHelp("Read the recovery key from the first line of FILE (else $HUSH_RECOVERY_KEY, else the terminal).", valueName: "FILE"))
    var recoveryKeyFile: String?

    func read(environment: [String: String]) throws -> RecoveryKey {
        var bytes = try PassphraseSource.resolve(file: recoveryKeyFile, environment: environment, variable: Self.environmentVariable)
            .read(prompt: "Recovery key: ", secret: .recoveryKey)
        defer { bytes.wipe() }
        return try RecoveryKey(parsing: String(decoding: bytes, as: UTF8.self))
    }

    /// Refuses an archive path that names no readable file before the
    /// recovery key is asked for: a typo in the path is said first, not
    /// after the user typed 64 characters (or as a missing key).
    static func requireArchive(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandError(.failure, "there is no file at \(path): give the path of a .hushbackup archive (`hush backup create --to DIR` writes them)")
        }
        guard !isDirectory.boolValue else {
            throw CommandError(.failure, "\(path) is a folder: give the archive in it (a hush-backup-DATE.hushbackup file)")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandError(.failure, "\(path) cannot be read by this user: check its permissions")
        }
        // Before the recovery key is asked for: a file that is no archive is said at once.
        try HushAccount.checkBackupArchive(at: path)
    }
}

/// What an archive holds, for people and for `--json`.
enum BackupSummaryOutput {
    static func json(_ summary: BackupSummary) -> [String: Any] {
        ["path": summary.path, "address": summary.address,
         "createdAt": ISO8601DateFormatter().string(from: summary.createdAt),
         "contacts": summary.contacts, "conversations": summary.conversations, "messages": summary.messages,
         "groups": summary.groups, "outbox": summary.pendingOutbox, "files": summary.files,
         "fileBytes": Int(summary.fileBytes), "archiveBytes": Int(summary.archiveBytes), "rows": summary.rowsByTable]
    }

    static func lines(_ summary: BackupSummary) -> [String] {
        ["Account:  \(summary.address)",
         "Made:     \(ISO8601DateFormatter().string(from: summary.createdAt))",
         "Holds:    " + [count(summary.contacts, "contact"), count(summary.conversations, "conversation"), count(summary.messages, "message"),
                        count(summary.groups, "group"), "\(summary.pendingOutbox) queued to send",
                        count(summary.files, "file") + " (\(summary.fileBytes) bytes)"].joined(separator: ", "),
         "Size:     \(summary.archiveBytes) bytes"]
    }

    /// "1 group", "2 groups".
    private static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}

struct BackupKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Show the account's recovery key (made now for an account that has none).",
        discussion: """
            The recovery key opens every backup of this account: anyone holding it and an archive can \
            read the archive and become you. Write it down and keep it apart from the archives.
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors {
            let ((key, isNew), _) = try await global.unlocking { directory, keys in
                try await HushAccount.recoveryKey(in: directory, keys: keys)
            }
            if global.json {
                try printJSON(["recoveryKey": key.displayText, "new": isNew])
            } else {
                print("Recovery key: \(key.displayText)")
                print(isNew ? "This account had no recovery key: this one is new. Write it down now and keep it safe, apart from your backups."
                            : "Anyone with this key and one of your backups can read it and become you: keep it safe, apart from your backups.")
            }
        }
    }
}

struct BackupCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Write an encrypted archive of the account into a folder.",
        discussion: """
            Writes hush-backup-DATE.hushbackup into DIR (made when missing), first under a temporary name \
            and renamed when complete. Other commands may use the account meanwhile: the archive holds one \
            consistent moment. While a daemon runs, it writes the archive (no passphrase), after any \
            scheduled backup it is writing.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The folder to write the archive into.", valueName: "DIR"))
    var to: String

    func validate() throws {
        // Before the daemon's path resolution, which would read "" as the client's working folder.
        guard !to.isEmpty else { throw ValidationError("--to names no folder: give the folder to write the archive into") }
    }

    func run() async throws {
        try await reportingErrors {
            let summary: BackupSummary
            if let context = CommandContext.current {
                // Through the daemon: its open account, one backup at a time with its schedule's.
                summary = try await context.account.createBackup(to: CommandContext.resolve(to))
            } else {
                summary = try await global.unlocking { directory, keys in
                    try await HushAccount.createBackup(of: directory, keys: keys, to: to)
                }.opened
            }
            if global.json {
                var object = BackupSummaryOutput.json(summary)
                object["madeInReplacedHome"] = summary.madeInReplacedHome.map { $0.formatted(.iso8601) } ?? NSNull()
                try printJSON(object)
            } else {
                print("Backed up to \(summary.path)")
                BackupSummaryOutput.lines(summary).forEach { print($0) }
            }
            if let replaced = summary.madeInReplacedHome {
                printNotice("another home registered this identity at \(replaced.formatted(.iso8601)) and replaced this one: "
                    + "the archive holds this home's history, but restoring it would register the identity again and cut off that "
                    + "newer home (its messages since then are not in this archive). Back up the newer home instead, unless you mean to go back")
            }
        }
    }
}

struct BackupVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every part of an archive with the recovery key, and say what it holds (restores nothing).")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var recovery: RecoveryKeyOptions

    @Argument(help: ArgumentHelp("The archive.", valueName: "ARCHIVE"))
    var archive: String

    func run() async throws {
        try await reportingErrors {
            try RecoveryKeyOptions.requireArchive(archive)
            let key = try recovery.read(environment: ProcessInfo.processInfo.environment)
            let summary = try HushAccount.verifyBackup(at: archive, recoveryKey: key)
            if global.json {
                var object = BackupSummaryOutput.json(summary)
                object["verified"] = true
                try printJSON(object)
            } else {
                print("The archive is complete and authentic.")
                BackupSummaryOutput.lines(summary).forEach { print($0) }
            }
        }
    }
}

struct BackupRestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore an archive into a new home with the recovery key.",
        discussion: """
            The home (--home, HUSH_HOME or ~/.hush) must not exist or be empty. Asks for the recovery key \
            (or --recovery-key-file, HUSH_RECOVERY_KEY), then for a new passphrase as `hush init` does. \
            Nothing is written unless the whole archive restores. The restored account has the same \
            address; it registers with the relay and its first message to each contact starts a new \
            session. The home the archive came from then stops using the relay (its commands end \
            with exit code 27): one home per identity.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var kdf: KDFOptions
    @OptionGroup var recovery: RecoveryKeyOptions

    @Argument(help: ArgumentHelp("The archive.", valueName: "ARCHIVE"))
    var archive: String

    @Flag(help: "Register the restored home even when another home registered the account after the archive was made (that home is cut off).")
    var replaceNewerHome = false

    func run() async throws {
        try await reportingErrors {
            let environment = ProcessInfo.processInfo.environment
            let directory = try global.emptyHomeDirectory(environment: environment, filling: "a backup is only restored")
            try RecoveryKeyOptions.requireArchive(archive)
            let key = try recovery.read(environment: environment)
            // The key is checked against the archive's header before a new passphrase is
            // asked for. The records are checked once, by the restore as it reads them (into
            // a temporary folder, so a damaged archive still writes nothing): reading the
            // whole archive twice made a restore cost twice its decryption.
            try HushAccount.checkBackupKey(at: archive, recoveryKey: key)
            let keys = try kdf.newKeystoreKeys(passphraseFile: global.passphraseFile, environment: environment)
            let derivationsBefore = KeyProvider.derivationsSoFar
            let start = ContinuousClock.now
            // The restored account comes back open: unlocking its new keystore again would derive
            // its key a second time, and that derivation's memory set the restore's peak.
            let (summary, account) = try await HushAccount.restoreBackupAndOpen(at: archive, into: directory, recoveryKey: key, keys: keys)
            defer { account.close() }
            // New sessions at once, so the first message to each contact can be sealed.
            var sessionError: HushError?
            var started = 0
            // A linked device's backup restores its history only: no device key, no relay, no sessions.
            if !account.lacksDeviceKey {
                do {
                    started = try await account.startMissingSessions(replacingNewerHome: replaceNewerHome)
                } catch let error as HushError { sessionError = error }
            }
            if environment["HUSH_TIMINGS"] == "1" {
                let elapsed = ContinuousClock.now - start
                let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                printError(String(format: "timing: restore and new sessions %.2f ms, %d key derivation(s)",
                                  milliseconds, KeyProvider.derivationsSoFar - derivationsBefore))
            }
            if global.json {
                var object = BackupSummaryOutput.json(summary)
                object["home"] = directory
                object["sessionsStarted"] = started
                object["deviceKeyMissing"] = account.lacksDeviceKey
                object["scheduleNotRestored"] = summary.scheduleNotRestored.map {
                    ["everySeconds": Int($0.every), "to": $0.directory, "keep": $0.keep] as [String: Any]
                } ?? NSNull()
                try printJSON(object)
            } else {
                print("Restored into \(directory)")
                BackupSummaryOutput.lines(summary).forEach { print($0) }
                if account.lacksDeviceKey {
                    print("This was a linked device's backup: its history is here, but not its device key (no backup holds one),")
                    print("so this home uses no relay. To use this machine as a device, run `hush device link` on an active device")
                    print("of the account and `hush init --link CODE` in a new home.")
                } else if sessionError == nil {
                    print("New sessions with \(started) contacts; what they sent you since the backup is sent again once they hear from you, "
                          + "unless another home of this account already received it (it stays there: `hush export` it).")
                }
                if let schedule = summary.scheduleNotRestored { print(BackupScheduleCommand.notRestored(schedule)) }
            }
            if let sessionError, sessionError.kind == .homeReplaced {
                // A newer home holds the account (§19.4): not cut off unless asked.
                printError("the account was restored, but not registered: \(sessionError.reason). Use that home, or back it up and "
                    + "restore that backup; to cut it off and use this one anyway, run `hush backup sessions --replace-newer-home` here")
                throw ExitCode(.homeReplaced)
            }
            if let sessionError {
                // Until it registers, the relay still serves the home the backup came from (§19.4).
                printError("the account was restored, but registering it with the relay and starting new sessions failed: \(sessionError). "
                    + "Until `hush backup sessions` succeeds here (run it when the relay is reachable), this home sends and fetches nothing, "
                    + "and the relay still delivers the account's messages to the home the backup was made from: if that one still runs, stop it first")
                throw ExitCode(.relayUnavailable)
            }
        }
    }
}

struct BackupSessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "Start a new session with every contact that has none (after a restore made while the relay was unreachable).")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "In a restored home: register it even when another home registered the account after the archive was made (that home is cut off).")
    var replaceNewerHome = false

    func run() async throws {
        try await reportingErrors {
            let account = try await global.openAccount()
            defer { global.finished(with: account) }
            let started = try await account.startMissingSessions(replacingNewerHome: replaceNewerHome)
            if global.json { try printJSON(["sessionsStarted": started]) } else { print("New sessions with \(started) contacts.") }
        }
    }
}
