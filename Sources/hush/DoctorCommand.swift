import ArgumentParser
import Foundation
import HushKit
import HushTerminal

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the data directory, the keystore and the encrypted database.",
        discussion: """
            Checks the permissions of the data directory, unlocks the keystore, opens the database and \
            runs PRAGMA integrity_check, and SQLCipher's cipher_integrity_check where the installed \
            SQLCipher has it (4.0 and later; reported as not available otherwise), and says how the home \
            stands with its relay. Exits 18 when a check finds a problem, among them a missing or \
            emptied messages.db (restore it from your backup) and a home that cannot use its relay: \
            another home registered this identity since (a backup restored elsewhere), or a restored \
            home that has not registered yet (`hush backup sessions`). Only when there is no backup, --new-database creates an empty one for the same \
            identity (sessions and contacts are gone: add your contacts again).

            Examples:
              hush doctor
              HUSH_PASSPHRASE=secret hush doctor --home /tmp/alice --json
              hush doctor --new-database
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Create an empty messages.db when it is missing or empty (never replaces one that has data).")
    var newDatabase = false

    func run() async throws {
        let (account, createdDatabase, keystore, doctor, registration, revokedAt) = try await reportingErrors {
            let (account, created) = try await openCheckingDatabase()
            do {
                return (account, created, try HushAccount.keystoreDetails(in: account.directory), try await account.checkup(),
                        // A list that no longer reads is the database check's to report, not a reason to stop.
                        try await account.relayRegistration(), (try? await account.revokedAt()) ?? nil)
            } catch {
                account.close()
                throw error
            }
        }
        defer { account.close() }
        if createdDatabase { print("Created an empty messages.db for this identity: add your contacts again.") }
        let (home, fingerprint) = (account.directory, account.fingerprint)
        // A replaced home, or a restored one that never registered, is sound on disk but cannot
        // message: the problem a user running doctor wants named (§19.4).
        // So is a device the account revoked (§20.14): it reads what it holds and writes nothing.
        let cutOff = switch registration {
        case .replaced, .restoredNotRegistered: true
        case .registered, .notRegistered: revokedAt != nil
        }
        if global.json {
            var replacedAt: Any = NSNull()
            if case let .replaced(at) = registration { replacedAt = at.formatted(.iso8601) }
            try printJSON([
                "home": home, "permissions": "ok", "identityKey": fingerprint.replacingOccurrences(of: " ", with: ""),
                "linkedDevice": account.isLinkedDevice, "revokedAt": revokedAt.map { $0.formatted(.iso8601) } ?? NSNull(),
                "keystore": ["version": keystore.formatVersion, "kdf": keystore.keyDerivation],
                "database": ["cipherVersion": doctor.cipherVersion, "schemaVersion": doctor.schemaVersion,
                             "latestSchemaVersion": doctor.latestSchemaVersion, "pageCount": doctor.pageCount,
                             "pageSize": doctor.pageSize,
                             "integrityCheck": Self.json(doctor.integrity), "cipherIntegrityCheck": Self.json(doctor.cipherIntegrity)],
                "relay": ["url": account.relayURL ?? NSNull(), "registered": registration == .registered,
                          "restoredNotRegistered": registration == .restoredNotRegistered, "replacedAt": replacedAt],
                "healthy": doctor.isHealthy && !cutOff,
            ])
        } else {
            print("data directory          \(home) (\(TerminalStyle.standard.good("permissions ok")))")
            print("keystore                version \(keystore.formatVersion), \(keystore.keyDerivation)")
            print("identity key            \(fingerprint) (the account's)")
            print("this device             " + (account.isLinkedDevice ? "linked to the account: its own key at the relay (`hush device list`)"
                                                                        : "the account's first or only one: the account key at the relay"))
            if let revokedAt {
                print("                        " + TerminalStyle.standard.bad("revoked from the account at \(revokedAt.formatted(.iso8601)): "
                    + "it reads what it holds and writes nothing; write from another device (`hush device list`)"))
            }
            print("SQLCipher               \(doctor.cipherVersion)")
            print("schema                  version \(doctor.schemaVersion) of \(doctor.latestSchemaVersion)")
            print("database size           \(doctor.pageCount) pages of \(doctor.pageSize) bytes")
            print("integrity_check         \(Self.text(doctor.integrity))")
            print("cipher_integrity_check  \(Self.text(doctor.cipherIntegrity))")
            let relay = "\(account.relayURL ?? "none") (\(WhoamiCommand.describe(registration)))"
            print("relay                   " + (cutOff ? TerminalStyle.standard.bad(relay) : relay))
        }
        if !doctor.isHealthy || cutOff { throw ExitCode(.doctorFoundProblems) }
    }

    /// Opens the account. A missing or emptied database is a failed check
    /// (exit 18: restore it from a backup), or, with --new-database,
    /// replaced by an empty one for the same identity; --new-database never
    /// replaces a database that opens.
    private func openCheckingDatabase() async throws -> (HushAccount, createdDatabase: Bool) {
        do {
            return try await global.unlocking { directory, keys in
                do {
                    let account = try await HushAccount.open(in: directory, keys: keys)
                    guard !newDatabase else {
                        account.close()
                        throw ValidationError("messages.db exists and holds data: --new-database only creates one when it is missing or empty")
                    }
                    return (account, false)
                } catch let error as HushError where error.kind == .databaseMissing && newDatabase {
                    return (try await HushAccount.openWithNewDatabase(in: directory, keys: keys), true)
                }
            }.opened
        } catch let error as HushError where error.kind == .databaseMissing {
            printError(error.lifecycleReport?.message ?? error.description)
            throw ExitCode(.doctorFoundProblems)
        }
    }

    static func text(_ check: DatabaseCheckup.Check) -> String {
        switch check {
        case .ok: return TerminalStyle.standard.good("ok")
        case let .problems(rows): return TerminalStyle.standard.bad("problems:\n  " + rows.joined(separator: "\n  "))
        case let .notAvailable(reason): return TerminalStyle.standard.dim("not available (\(reason))")
        }
    }

    static func json(_ check: DatabaseCheckup.Check) -> Any {
        switch check {
        case .ok: return "ok"
        case let .problems(rows): return ["problems": rows]
        case .notAvailable: return "not available"
        }
    }
}
