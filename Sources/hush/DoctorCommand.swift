import ArgumentParser
import HushClient
import HushTerminal

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
        let checkup = try reportingErrors {
            try AccountCheckup.run(global.accountHome(), createMissingDatabase: newDatabase)
        }
        if checkup.createdDatabase { print("Created an empty messages.db for this identity: add your contacts again.") }
        let (doctor, home, fingerprint) = (checkup.database, checkup.home, checkup.fingerprint)
        if global.json {
            try printJSON([
                "home": home, "permissions": "ok", "identityKey": fingerprint.replacingOccurrences(of: " ", with: ""),
                "keystore": ["version": Int(checkup.keystoreVersion), "kdf": checkup.kdf],
                "database": ["cipherVersion": doctor.cipherVersion, "schemaVersion": doctor.schemaVersion,
                             "latestSchemaVersion": doctor.latestSchemaVersion, "pageCount": doctor.pageCount,
                             "pageSize": doctor.pageSize,
                             "integrityCheck": Self.json(doctor.integrity), "cipherIntegrityCheck": Self.json(doctor.cipherIntegrity)],
                "healthy": doctor.healthy,
            ])
        } else {
            print("data directory          \(home) (\(TerminalStyle.standard.good("permissions ok")))")
            print("keystore                version \(checkup.keystoreVersion), \(checkup.kdf)")
            print("identity key            \(fingerprint)")
            print("SQLCipher               \(doctor.cipherVersion)")
            print("schema                  version \(doctor.schemaVersion) of \(doctor.latestSchemaVersion)")
            print("database size           \(doctor.pageCount) pages of \(doctor.pageSize) bytes")
            print("integrity_check         \(Self.text(doctor.integrity))")
            print("cipher_integrity_check  \(Self.text(doctor.cipherIntegrity))")
        }
        if !doctor.healthy { throw ExitCode(.doctorFoundProblems) }
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
