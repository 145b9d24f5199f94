import Foundation
import HushTesting
import Testing

/// `hush passphrase change` with the real binary: it rewrites the keystore
/// alone, so it works whatever state the database is in.
@Suite struct PassphraseChangeTests {
    private let cli = HushCLITests()

    /// The database is never read: a passphrase changes even while
    /// messages.db is missing (doctor then still reports that, exit 18).
    @Test func thePassphraseChangesWithoutTheDatabase() throws {
        let home = try HushCLITests.Home()
        #expect(try cli.hush(["init", "--home", home.path], extra: ["HUSH_KDF_COST": "interactive"]).status == 0)
        try FileManager.default.removeItem(atPath: home.path + "/messages.db")
        // No cost named (an empty variable names none): the keystore's own is kept.
        let change = try cli.hush(["passphrase", "change", "--home", home.path, "--json"],
                                  extra: ["HUSH_NEW_PASSPHRASE": "the new one", "HUSH_KDF_COST": ""])
        #expect(change.status == 0, "\(change.stderr)")
        #expect(change.stdout.contains("\"kdf\" : \"Argon2id(passes: 2, memory: 65536 KiB)\""), "the cost kept: \(change.stdout)")
        let doctor = try cli.hush(["doctor", "--home", home.path], passphrase: "the new one")
        #expect(doctor.status == 18 && doctor.stderr.contains("--new-database"), "\(doctor.stderr)")
        #expect(try cli.hush(["doctor", "--home", home.path]).status == 11, "the old passphrase no longer opens it")
    }
}
