import Foundation
import HushTesting
import Testing
import HushCrypto
@testable import HushKeystore

@Suite struct KeystoreTests {
    let cost = Argon2id.Cost.insecureTestOnly
    let passphrase = SecureBytes(copying: Array("correct horse battery staple".utf8))

    func makeContents(seed: String = "keystore-test") -> KeystoreContents {
        KeystoreContents.generate(createdAt: 1_700_000_000, using: DeterministicRandom(seed: seed))
    }

    /// Lives as long as the test (Swift Testing makes one suite value per
    /// test), so the keystore's home is never left behind.
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory(label: "keystore-test")
    }

    func newStore() -> KeystoreFile {
        KeystoreFile(directory: DataDirectory(path: temporary.path("home")))
    }

    @Test func createThenUnlockReturnsTheSameSecrets() throws {
        let keystore = newStore()
        let contents = makeContents()
        try keystore.create(contents, passphrase: passphrase, cost: cost)
        let opened = try keystore.unlock(passphrase: passphrase)
        #expect(opened.identitySeed == contents.identitySeed)
        #expect(opened.databaseKey == contents.databaseKey)
        #expect(opened.createdAt == 1_700_000_000)
        #expect(opened.identitySeed.storage == .guarded && opened.databaseKey.storage == .guarded)
        #expect(opened.identityKeyPair().publicKey == contents.identityKeyPair().publicKey)
    }

    @Test func createsTheDirectory0700AndTheFile0600() throws {
        let keystore = newStore()
        try keystore.create(makeContents(), passphrase: passphrase, cost: cost)
        var info = stat()
        #expect(stat(keystore.directory.path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(stat(keystore.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func wrongPassphraseFailsClearly() throws {
        let keystore = newStore()
        try keystore.create(makeContents(), passphrase: passphrase, cost: cost)
        #expect(throws: KeystoreError.wrongPassphrase) {
            _ = try keystore.unlock(passphrase: SecureBytes(copying: Array("wrong".utf8)))
        }
        // The error actually thrown names neither the right nor the tried passphrase.
        do {
            _ = try keystore.unlock(passphrase: SecureBytes(copying: Array("tried-guess-4711".utf8)))
            Issue.record("a wrong passphrase unlocked the keystore")
        } catch {
            let message = String(describing: error)
            #expect(!message.contains("tried-guess-4711"))
            #expect(!message.contains("correct horse"))
        }
    }

    @Test func secondCreateRefusesWithoutForce() throws {
        let keystore = newStore()
        try keystore.create(makeContents(seed: "first"), passphrase: passphrase, cost: cost)
        #expect(throws: KeystoreError.identityExists(path: keystore.path)) {
            try keystore.create(makeContents(seed: "second"), passphrase: passphrase, cost: cost)
        }
        #expect(try keystore.unlock(passphrase: passphrase).identitySeed == makeContents(seed: "first").identitySeed)
        try keystore.create(makeContents(seed: "second"), passphrase: passphrase, cost: cost, force: true)
        #expect(try keystore.unlock(passphrase: passphrase).identitySeed == makeContents(seed: "second").identitySeed)
    }

    @Test func changePassphraseRewrapsWithANewSaltAndTheOldStopsWorking() throws {
        let keystore = newStore()
        let contents = makeContents()
        try keystore.create(contents, passphrase: passphrase, cost: cost)
        let before = try keystore.header()
        let newPassphrase = SecureBytes(copying: Array("a new passphrase".utf8))
        try keystore.changePassphrase(from: passphrase, to: newPassphrase, cost: cost)
        #expect(try keystore.header().salt != before.salt)
        #expect(throws: KeystoreError.wrongPassphrase) { _ = try keystore.unlock(passphrase: passphrase) }
        let opened = try keystore.unlock(passphrase: newPassphrase)
        #expect(opened.databaseKey == contents.databaseKey && opened.identitySeed == contents.identitySeed)
    }

    @Test func aMissingKeystoreIsNoIdentity() throws {
        let keystore = newStore()
        #expect(throws: KeystoreError.noIdentity(home: keystore.directory.path)) {
            _ = try keystore.unlock(passphrase: passphrase)
        }
        #expect(String(describing: KeystoreError.noIdentity(home: "/x")).contains("no identity in /x"))
    }

    /// A file given as the home is named as such, never "no identity yet,
    /// run hush init" (which would fail the same way), and is left as it was.
    @Test func aFileWhereTheHomeShouldBeIsSaidToBeAFile() throws {
        let path = temporary.path("home")
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        let keystore = newStore()
        #expect(throws: KeystoreError.io(operation: "make a data directory at", path: path, errno: ENOTDIR)) {
            try keystore.create(makeContents(), passphrase: passphrase, cost: cost)
        }
        #expect(throws: KeystoreError.io(operation: "open the data directory", path: path, errno: ENOTDIR)) {
            _ = try keystore.unlock(passphrase: passphrase)
        }
        #expect(String(describing: KeystoreError.io(operation: "open the data directory", path: "/x", errno: ENOTDIR))
            == "could not open the data directory /x: Not a directory")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("x".utf8))
    }

    @Test func leftoverTemporaryFileIsIgnoredAndTheOldKeystoreStillOpens() throws {
        let keystore = newStore()
        let contents = makeContents()
        try keystore.create(contents, passphrase: passphrase, cost: cost)
        // What a crash between writing the temporary file and the rename leaves.
        let leftover = keystore.directory.file(AtomicFile.temporaryPrefix + "keystore-deadbeef")
        let fd = open(leftover, O_CREAT | O_WRONLY, 0o600)
        _ = write(fd, "half-written", 12)
        close(fd)
        #expect(try keystore.unlock(passphrase: passphrase).databaseKey == contents.databaseKey)
        // The next write replaces the keystore and clears the leftover.
        try keystore.changePassphrase(from: passphrase, to: passphrase, cost: cost)
        #expect(access(leftover, F_OK) != 0)
        #expect(try keystore.unlock(passphrase: passphrase).databaseKey == contents.databaseKey)
    }

    @Test func groupOrOtherPermissionsAreRefused() throws {
        let keystore = newStore()
        try keystore.create(makeContents(), passphrase: passphrase, cost: cost)
        chmod(keystore.path, 0o644)
        #expect { _ = try keystore.unlock(passphrase: passphrase) } throws: { error in
            if case .badPermissions(let path, _)? = error as? KeystoreError { return path == keystore.path }
            return false
        }
        chmod(keystore.path, 0o600)
        chmod(keystore.directory.path, 0o750)
        #expect { _ = try keystore.unlock(passphrase: passphrase) } throws: { error in
            if case .badPermissions(let path, _)? = error as? KeystoreError { return path == keystore.directory.path }
            return false
        }
        chmod(keystore.directory.path, 0o700)
        _ = try keystore.unlock(passphrase: passphrase)
    }
}
