import HushClient
import HushKeystore
import HushTesting
import Testing

/// An account made and opened in process, without a relay: what `hush init`,
/// `whoami`, `doctor` and `audit local` rest on.
@Suite struct AccountTests {
    private func home(_ directory: TemporaryDirectory) throws -> AccountHome {
        try AccountHome(home: directory.path("alice"), passphraseFile: nil,
                        environment: ["HUSH_PASSPHRASE": "correct horse", "HUSH_KDF_COST": "interactive"])
    }

    @Test func createThenOpenGivesTheSameIdentity() async throws {
        let directory = try TemporaryDirectory(label: "account")
        let created = try await Account.create(in: try home(directory), name: "alice", relay: nil, kdfCost: nil, replacingExisting: false)
        #expect(created.registrationError == nil)
        let client = try Account.open(try home(directory), offline: true)
        #expect(client.address == created.address)
        #expect(client.fingerprint == created.fingerprint)
        #expect(client.relayURL == nil)
        #expect(try await client.isRegistered() == false)
    }

    @Test func anExistingIdentityIsNeverReplacedSilently() async throws {
        let directory = try TemporaryDirectory(label: "account")
        _ = try await Account.create(in: try home(directory), name: nil, relay: nil, kdfCost: nil, replacingExisting: false)
        await #expect(throws: KeystoreError.self) {
            _ = try await Account.create(in: try home(directory), name: nil, relay: nil, kdfCost: nil, replacingExisting: false)
        }
    }

    @Test func checkupAndLocalAuditOfAFreshAccountAreClean() async throws {
        let directory = try TemporaryDirectory(label: "account")
        _ = try await Account.create(in: try home(directory), name: nil, relay: nil, kdfCost: nil, replacingExisting: false)
        let checkup = try AccountCheckup.run(try home(directory), createMissingDatabase: false)
        #expect(checkup.database.healthy)
        #expect(!checkup.createdDatabase)
        #expect(throws: AccountCheckupError.self) { try AccountCheckup.run(try home(directory), createMissingDatabase: true) }
        let audit = try await LocalAudit.run(try home(directory), canary: "pineapple-42") { try Account.open($0, offline: true) }
        #expect(audit.databaseEncrypted)
        #expect(!audit.failed)
    }
}
