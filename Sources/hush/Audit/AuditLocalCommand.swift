import ArgumentParser
import HushAudit
import HushKit

struct AuditLocalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "local",
        abstract: "Check your own data directory: permissions, encryption at rest, set-aside envelopes, and a canary scan.",
        discussion: """
            With --canary, every file under the data directory is searched for the text in UTF-8, \
            UTF-16, hex and base64: a message you sent or received with that text must not be found.

            Examples:
              hush audit local
              hush audit local --canary "pineapple-42"
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "A plaintext to look for in every file, in UTF-8, UTF-16, hex and base64.") var canary: String?

    func run() async throws {
        try await reportingErrors {
            let audit = try await LocalAudit.run(global.homeDirectory(), canary: canary) { try await global.openAccount() }
            let loose = audit.filesReadableByOthers
            if global.json {
                var object: [String: Any] = [
                    "home": audit.home, "databaseEncrypted": audit.databaseEncrypted, "filesReadableByOthers": loose,
                    "quarantined": audit.setAside.map { ["serverId": $0.relayID as Any, "reason": $0.reason, "bytes": $0.byteCount] },
                    "integrity": audit.integrityHealthy,
                ]
                if let scan = audit.canaryScan { object["canary"] = ["found": scan.foundAnywhere, "filesScanned": scan.filesScanned] }
                try printJSON(object)
            } else {
                print("Data directory   \(audit.home)")
                print("Permissions      " + (loose.isEmpty ? Presentation.style.good("owner only (0700 directory, 0600 files)") : Presentation.style.bad("readable by others: \(loose.joined(separator: ", "))")))
                print("Database         " + (audit.databaseEncrypted ? Presentation.style.good("encrypted (no SQLite header; SQLCipher)") : Presentation.style.bad("PLAINTEXT")))
                print("Integrity        " + (audit.integrityHealthy ? Presentation.style.good("ok") : Presentation.style.bad("problems: run `hush doctor`")))
                print("Set aside        \(audit.setAside.count) envelope(s) that could not be decrypted")
                for entry in audit.setAside { print("  relay id \(entry.relayID.map(String.init) ?? "?"): \(entry.reason) (\(entry.byteCount) bytes)") }
                if let scan = audit.canaryScan, let canary { print(""); print(CanaryScanner.render(scan, canaryLength: canary.count)) }
            }
            if audit.failed { throw ExitCode.failure }
        }
    }
}
