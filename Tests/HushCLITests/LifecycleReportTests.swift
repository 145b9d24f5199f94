import Foundation
import HushKit
import HushTesting
import Testing
@testable import hush

/// How `hush` reports the account's own failures: today's exit codes and
/// words (README.md's table), with the command that helps.
@Suite struct LifecycleReportTests {
    @Test func eachKindOfTheAccountsOwnFailuresHasItsExitCode() {
        // README.md's codes, as numbers: scripts branch on these.
        let expected: [(HushError.Kind, Int32)] = [
            (.noAccount, 10), (.wrongKey, 11), (.damagedKeystore, 12), (.keystoreTooNew, 13), (.unsafePermissions, 14),
            (.accountExists, 15), (.keyUnavailable, 16), (.databaseMissing, 17), (.databaseUnusable, 17),
        ]
        for (kind, code) in expected {
            #expect(HushError(kind, reason: "r").lifecycleReport?.status.rawValue == code, "\(kind)")
        }
        for kind in [HushError.Kind.notFound, .relayUnavailable, .invalidInput, .storage, .other] {
            #expect(HushError(kind, reason: "r").lifecycleReport == nil, "\(kind) is not the lifecycle's")
        }
    }

    @Test func theWordsNameTheCommandThatHelps() {
        #expect(HushError(.noAccount, reason: "no identity in /h yet").lifecycleReport?.message
            == "no identity in /h yet: run `hush init` first")
        #expect(HushError(.accountExists, reason: "an identity already exists at /h/keystore: refusing to overwrite it")
            .lifecycleReport?.message.contains("`hush init --force`") == true)
        #expect(HushError(.databaseMissing, reason: "/h/messages.db is missing.").lifecycleReport?.message
            .hasSuffix("run `hush doctor --new-database`.") == true)
        #expect(HushError(.wrongKey, reason: "the key does not open the keystore").lifecycleReport?.message
            .hasPrefix("wrong passphrase") == true)
    }

    /// `audit local` on a fresh account: owner-only files, an encrypted
    /// database, nothing set aside, and a canary found nowhere.
    @Test func aFreshAccountsLocalAuditIsClean() async throws {
        let temporary = try TemporaryDirectory(label: "audit")
        let directory = temporary.path("home")
        let keys = KeyProvider.passphrase("correct horse", cost: .interactive)
        try await HushAccount.create(in: directory, keys: keys).close()
        let audit = try await LocalAudit.run(directory, canary: "pineapple-42") {
            try await HushAccount.open(in: directory, keys: keys)
        }
        #expect(audit.databaseEncrypted && audit.filesReadableByOthers.isEmpty && audit.setAside.isEmpty && audit.integrityHealthy)
        #expect(audit.canaryScan?.foundAnywhere == false)
        #expect(!audit.failed)
        // A file open to others stops the opening itself (exit 14, naming the chmod that fixes it).
        chmod(directory + "/" + HushAccount.databaseFileName, 0o644)
        let loose = await #expect(throws: HushError.self) {
            _ = try await LocalAudit.run(directory, canary: nil) { try await HushAccount.open(in: directory, keys: keys) }
        }
        #expect(loose?.kind == .unsafePermissions)
    }
}
