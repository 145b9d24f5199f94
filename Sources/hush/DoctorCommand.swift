import ArgumentParser
import Glibc
import HushTerminal
import HushKeystore
import HushStore

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the data directory, the keystore and the encrypted database.",
        discussion: """
            Checks the permissions of the data directory, unlocks the keystore, opens the database and \
            runs PRAGMA integrity_check, and SQLCipher's cipher_integrity_check where the installed \
            SQLCipher has it (4.0 and later; reported as not available otherwise). Exits 18 when a \
            check finds a problem, among them a missing or emptied messages.db: restore it from your \
            backup. Only when there is no backup, --new-database creates an empty one for the same \
            identity (sessions and contacts are gone: add your contacts again).

            Examples:
              hush doctor
              HUSH_PASSPHRASE=secret hush doctor --home /tmp/alice --json
              hush doctor --new-database
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Create an empty messages.db when it is missing or empty (never replaces one that has data).")
    var newDatabase = false

    func run() throws {
        let report = try reportingErrors { () throws -> (DoctorReport, KeystoreHeader, String, String) in
            let context = try HomeContext(global)
            let contents = try context.unlock()
            let header = try context.keystore.header()
            let store = try openOrCreateStore(context, contents)
            return (try store.doctor(), header, context.directory.path, identityFingerprint(contents))
        }
        let (doctor, header, home, fingerprint) = report
        if global.json {
            try printJSON([
                "home": home, "permissions": "ok", "identityKey": fingerprint.replacingOccurrences(of: " ", with: ""),
                "keystore": ["version": Int(header.version), "kdf": header.cost.description],
                "database": ["cipherVersion": doctor.cipherVersion, "schemaVersion": doctor.schemaVersion,
                             "latestSchemaVersion": doctor.latestSchemaVersion, "pageCount": doctor.pageCount,
                             "pageSize": doctor.pageSize,
                             "integrityCheck": Self.json(doctor.integrity), "cipherIntegrityCheck": Self.json(doctor.cipherIntegrity)],
                "healthy": doctor.healthy,
            ])
        } else {
            print("data directory          \(home) (\(TerminalStyle.standard.good("permissions ok")))")
            print("keystore                version \(header.version), \(header.cost)")
            print("identity key            \(fingerprint)")
            print("SQLCipher               \(doctor.cipherVersion)")
            print("schema                  version \(doctor.schemaVersion) of \(doctor.latestSchemaVersion)")
            print("database size           \(doctor.pageCount) pages of \(doctor.pageSize) bytes")
            print("integrity_check         \(Self.text(doctor.integrity))")
            print("cipher_integrity_check  \(Self.text(doctor.cipherIntegrity))")
        }
        if !doctor.healthy { throw ExitCode(ExitStatus.doctorFoundProblems.rawValue) }
    }

    /// Opens the database; a missing or emptied one is a failed check (exit 18
    /// with what to do), or, with --new-database, replaced by an empty one.
    private func openOrCreateStore(_ context: HomeContext, _ contents: KeystoreContents) throws -> MessageStore {
        let store: MessageStore
        do {
            store = try context.openStore(contents)
        } catch let error as StoreError {
            guard case .databaseMissing = error else { throw error }
            guard newDatabase else {
                printError(error.description)
                throw ExitCode(ExitStatus.doctorFoundProblems.rawValue)
            }
            // An empty file, or SQLite's leftovers beside a missing one, are replaced.
            for suffix in ["", "-wal", "-shm"] { unlink(context.directory.databasePath + suffix) }
            let created = try context.createStore(contents)
            print("Created an empty messages.db for this identity: add your contacts again.")
            return created
        }
        if newDatabase {
            printError("messages.db exists and holds data: --new-database only creates one when it is missing or empty")
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        return store
    }

    static func text(_ check: DoctorReport.Check) -> String {
        switch check {
        case .ok: return TerminalStyle.standard.good("ok")
        case let .problems(rows): return TerminalStyle.standard.bad("problems:\n  " + rows.joined(separator: "\n  "))
        case let .notAvailable(reason): return TerminalStyle.standard.dim("not available (\(reason))")
        }
    }

    static func json(_ check: DoctorReport.Check) -> Any {
        switch check {
        case .ok: return "ok"
        case let .problems(rows): return ["problems": rows]
        case .notAvailable: return "not available"
        }
    }
}
