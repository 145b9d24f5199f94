import Foundation
import HushKit
import Testing

/// An account's life beside messaging: replacing it, its keystore, its
/// database's health and repair, its permissions, the libraries loaded.
@Suite struct HushKitLifecycleTests {
    private func newDirectory(_ label: String) throws -> String {
        try RelayProcess.temporaryDirectory(label).appendingPathComponent("home").path
    }

    @Test func anAccountIsReplacedOnlyWhenAskedTo() async throws {
        let directory = try newDirectory("replace")
        #expect(!HushAccount.exists(in: directory))
        let first = try await HushAccount.create(in: directory, keys: App.keys)
        first.close()
        #expect(HushAccount.exists(in: directory))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains(HushAccount.keystoreFileName) && files.contains(HushAccount.databaseFileName))
        #expect(await App.errorKind { _ = try await HushAccount.create(in: directory, keys: App.keys, replacingExisting: false) }
            == .accountExists)
        let second = try await HushAccount.create(in: directory, keys: App.keys, replacingExisting: true)
        defer { second.close() }
        #expect(second.address != first.address, "a new identity")
        #expect(try await second.checkup().isHealthy, "with a new database its keystore opens")
    }

    @Test func theKeystoreSaysHowItIsSealedAndAPassphraseCanKeepItsCost() async throws {
        let directory = try newDirectory("keystore")
        let account = try await HushAccount.create(in: directory, keys: App.keys)
        defer { account.close() }
        let details = try HushAccount.keystoreDetails(in: directory)
        #expect(details.formatVersion == 1 && details.isPassphraseProtected)
        #expect(details.keyDerivation == "Argon2id(passes: 2, memory: 65536 KiB)", "interactive")
        try await account.changeKeys(from: App.keys, to: .passphrase(bytes: Array("another one".utf8), costOf: details))
        #expect(try HushAccount.keystoreDetails(in: directory) == details, "the cost is kept")
        let key = KeyProvider.newApplicationKey()
        try await account.changeKeys(from: .passphrase("another one"), to: .applicationKey(key))
        let sealedByKey = try HushAccount.keystoreDetails(in: directory)
        #expect(!sealedByKey.isPassphraseProtected && sealedByKey.keyDerivation.contains("application key"))
    }

    @Test func aMissingDatabaseIsToldApartAndReplacedOnlyWhenMissing() async throws {
        let directory = try newDirectory("database")
        let account = try await HushAccount.create(in: directory, keys: App.keys)
        let address = account.address
        let checkup = try await account.checkup()
        #expect(checkup.isHealthy && checkup.integrity == .ok && checkup.schemaVersion == checkup.latestSchemaVersion)
        #expect(checkup.pageCount > 0 && checkup.pageSize > 0 && !checkup.cipherVersion.isEmpty)
        switch checkup.cipherIntegrity {
        case .ok: break
        case let .notAvailable(reason): #expect(reason.contains(checkup.cipherVersion), "says which SQLCipher lacks it")
        case let .problems(rows): Issue.record("a fresh database has problems: \(rows)")
        }
        #expect(try await account.setAsideEnvelopes().isEmpty)
        account.close()

        let database = directory + "/" + HushAccount.databaseFileName
        #expect(await App.errorKind { _ = try await HushAccount.openWithNewDatabase(in: directory, keys: App.keys) } == .invalidInput,
                "a database that holds data is never replaced")
        try FileManager.default.removeItem(atPath: database)
        #expect(await App.errorKind { _ = try await HushAccount.open(in: directory, keys: App.keys) } == .databaseMissing)
        let repaired = try await HushAccount.openWithNewDatabase(in: directory, keys: App.keys)
        let contacts = try await repaired.contacts()
        #expect(repaired.address == address && contacts.isEmpty)
        repaired.close()

        // Another account's database in its place opens with neither key.
        let other = try newDirectory("other")
        try await HushAccount.create(in: other, keys: App.keys).close()
        try FileManager.default.removeItem(atPath: database)
        try FileManager.default.copyItem(atPath: other + "/" + HushAccount.databaseFileName, toPath: database)
        chmod(database, 0o600)
        #expect(await App.errorKind { _ = try await HushAccount.open(in: directory, keys: App.keys) } == .databaseUnusable)
    }

    @Test func aDamagedOrNewerKeystoreIsToldApartFromAWrongKey() async throws {
        let directory = try newDirectory("damaged")
        try await HushAccount.create(in: directory, keys: App.keys).close()
        let path = directory + "/" + HushAccount.keystoreFileName
        var keystore = try Data(contentsOf: URL(fileURLWithPath: path))
        keystore[8] = 9 // a format version from the future
        try keystore.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect(await App.errorKind { _ = try await HushAccount.open(in: directory, keys: App.keys) } == .keystoreTooNew)
        keystore[8] = 1
        keystore.removeLast(keystore.count - 20)
        try keystore.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        #expect(await App.errorKind { _ = try await HushAccount.open(in: directory, keys: App.keys) } == .damagedKeystore)
    }

    @Test func permissionsAreCheckedWithoutAKey() async throws {
        let directory = try newDirectory("permissions")
        #expect(await App.errorKind { try HushAccount.checkPermissions(in: directory) } == .noAccount)
        try await HushAccount.create(in: directory, keys: App.keys).close()
        try HushAccount.checkPermissions(in: directory)
        chmod(directory + "/" + HushAccount.keystoreFileName, 0o644)
        #expect(await App.errorKind { try HushAccount.checkPermissions(in: directory) } == .unsafePermissions)
    }

    @Test func anEmptyPassphraseIsNoKey() async throws {
        let directory = try newDirectory("empty-passphrase")
        #expect(await App.errorKind { _ = try await HushAccount.create(in: directory, keys: .passphrase(bytes: [])) } == .keyUnavailable)
    }

    @Test func theLoadedLibrariesNameTheirVersions() {
        let libraries = LoadedLibraries.current
        for version in [libraries.sodium, libraries.sqlite, libraries.sqlcipher ?? ""] {
            #expect(version.contains(".") && version.allSatisfy { $0.isNumber || $0 == "." || $0 == " " || $0.isLetter }, "\(version)")
        }
    }

    @Test func aNewDisplayNameIsQueuedForEachAcceptedContact() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        #expect(try await alice.setDisplayName("Alice A.") == 0, "no contact yet")
        _ = try await alice.addContact(name: "bob", address: bob.address)
        #expect(try await alice.setDisplayName("Alice L.") == 1)
        #expect(try await alice.displayName() == "Alice L.")
    }
}

/// Changing and checking keys without opening the account.
@Suite struct HushKitKeysWithoutOpeningTests {
    @Test func keysAreCheckedAndChangedWithoutTheDatabase() async throws {
        let directory = try RelayProcess.temporaryDirectory("closed-keys").appendingPathComponent("home").path
        try await HushAccount.create(in: directory, keys: App.keys).close()
        try FileManager.default.removeItem(atPath: directory + "/" + HushAccount.databaseFileName)
        try await HushAccount.checkKeys(App.keys, in: directory)
        #expect(await App.errorKind { try await HushAccount.checkKeys(.passphrase("wrong", cost: .interactive), in: directory) } == .wrongKey)
        let key = KeyProvider.newApplicationKey()
        #expect(await App.errorKind {
            try await HushAccount.changeKeys(in: directory, from: .passphrase("wrong", cost: .interactive), to: .applicationKey(key))
        } == .wrongKey)
        try await HushAccount.changeKeys(in: directory, from: App.keys, to: .applicationKey(key))
        try await HushAccount.checkKeys(.applicationKey(key), in: directory)
        #expect(await App.errorKind { try await HushAccount.checkKeys(App.keys, in: directory) } == .wrongKey)
        #expect(await App.errorKind { _ = try HushAccount.keystoreDetails(in: directory + "-none") } == .noAccount)
    }
}
