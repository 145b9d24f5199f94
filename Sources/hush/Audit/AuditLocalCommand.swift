import ArgumentParser
import Foundation
import HushAudit
import HushStore

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
            let context = try MessengerContext.open(global, offline: true)
            let directory = context.home.directory
            let header = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: directory.databasePath)).readData(ofLength: 16)) ?? Data()
            let databaseEncrypted = !header.starts(with: Data("SQLite format 3".utf8))
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            let loose = files.filter { file in
                let attributes = try? FileManager.default.attributesOfItem(atPath: directory.path + "/" + file)
                let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? 0
                return mode & 0o077 != 0
            }
            let quarantined = try await context.messenger.quarantined()
            let doctor = try await context.messenger.doctor()
            let scan = try canary.map { try CanaryScanner.scan(directory: directory.path, canary: $0) }
            if global.json {
                var object: [String: Any] = [
                    "home": directory.path, "databaseEncrypted": databaseEncrypted, "filesReadableByOthers": loose,
                    "quarantined": quarantined.map { ["serverId": $0.serverId as Any, "reason": $0.reason, "bytes": $0.envelope.count] },
                    "integrity": doctor.healthy,
                ]
                if let scan { object["canary"] = ["found": scan.foundAnywhere, "filesScanned": scan.filesScanned] }
                try printJSON(object)
            } else {
                print("Data directory   \(directory.path)")
                print("Permissions      " + (loose.isEmpty ? Presentation.style.good("owner only (0700 directory, 0600 files)") : Presentation.style.bad("readable by others: \(loose.joined(separator: ", "))")))
                print("Database         " + (databaseEncrypted ? Presentation.style.good("encrypted (no SQLite header; SQLCipher)") : Presentation.style.bad("PLAINTEXT")))
                print("Integrity        " + (doctor.healthy ? Presentation.style.good("ok") : Presentation.style.bad("problems: run `hush doctor`")))
                print("Set aside        \(quarantined.count) envelope(s) that could not be decrypted")
                for entry in quarantined { print("  relay id \(entry.serverId.map(String.init) ?? "?"): \(entry.reason) (\(entry.envelope.count) bytes)") }
                if let scan, let canary { print(""); print(CanaryScanner.render(scan, canaryLength: canary.count)) }
            }
            if !loose.isEmpty || !databaseEncrypted || scan?.foundAnywhere == true { throw ExitCode.failure }
        }
    }
}
