import Foundation
import HushTesting
import Testing
import HushCrypto
@_spi(Fuzzing) @testable import HushKeystore

/// Keystores sealed under a 32-byte key the application supplies (KDF
/// identifier 2) instead of Argon2id(passphrase).
@Suite struct ApplicationKeyKeystoreTests {
    let applicationKey = SecureBytes(copying: [UInt8](repeating: 0xa5, count: 32))
    let passphrase = SecureBytes(copying: Array("correct horse battery staple".utf8))
    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory(label: "application-key-test")
    }

    func newStore() -> KeystoreFile {
        KeystoreFile(directory: DataDirectory(path: temporary.path("home")))
    }

    func makeContents(seed: String = "application-key-test") -> KeystoreContents {
        KeystoreContents.generate(createdAt: 1_700_000_000, using: DeterministicRandom(seed: seed))
    }

    func fileBytes(_ keystore: KeystoreFile) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: keystore.path)))
    }

    func writeBytes(_ bytes: [UInt8], to keystore: KeystoreFile) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: keystore.path))
        chmod(keystore.path, 0o600)
    }

    @Test func createThenUnlockOnARealFileReturnsTheSameSecrets() throws {
        let keystore = newStore()
        let contents = makeContents()
        try keystore.create(contents, applicationKey: applicationKey)
        let opened = try keystore.unlock(applicationKey: SecureBytes(copying: applicationKey.copyBytes()))
        #expect(opened.identitySeed == contents.identitySeed && opened.databaseKey == contents.databaseKey)
        #expect(opened.createdAt == 1_700_000_000)
        #expect(opened.identitySeed.storage == .guarded && opened.databaseKey.storage == .guarded)
        #expect(try keystore.header().keyDerivation == .applicationKey)
        var info = stat()
        #expect(stat(keystore.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let file = try fileBytes(keystore)
        #expect(Array(file[0..<8]) == Array("HUSHKEYS".utf8))
        #expect(file[8] == 1 && file[9] == 2)
        #expect(file[10..<18].allSatisfy { $0 == 0 })
    }

    @Test func aWrongApplicationKeyFailsAsWrongApplicationKeyAndNamesNoKey() throws {
        let keystore = newStore()
        try keystore.create(makeContents(), applicationKey: applicationKey)
        let wrong = SecureBytes(copying: [UInt8](repeating: 0x5a, count: 32))
        #expect(throws: KeystoreError.wrongApplicationKey) { _ = try keystore.unlock(applicationKey: wrong) }
        let message = String(describing: KeystoreError.wrongApplicationKey)
        #expect(message.contains("wrong application key"))
        #expect(!message.contains("a5a5") && !message.contains("5a5a"))
    }

    @Test func anApplicationKeyOfAnyOtherLengthIsRefusedAndNothingIsWritten() throws {
        let keystore = newStore()
        for length in [0, 16, 31, 33, 64] {
            let key = SecureBytes(copying: [UInt8](repeating: 7, count: length))
            #expect(throws: KeystoreError.applicationKeyWrongLength(found: length)) {
                try keystore.create(makeContents(), applicationKey: key)
            }
            #expect(!keystore.exists)
        }
        try keystore.create(makeContents(), applicationKey: applicationKey)
        #expect(throws: KeystoreError.applicationKeyWrongLength(found: 31)) {
            _ = try keystore.unlock(applicationKey: SecureBytes(copying: [UInt8](repeating: 0xa5, count: 31)))
        }
        #expect(String(describing: KeystoreError.applicationKeyWrongLength(found: 31)).contains("exactly 32 random bytes"))
    }

    @Test func anIdentifierFlippedTo1IsDamaged() throws {
        let keystore = newStore()
        try keystore.create(makeContents(), applicationKey: applicationKey)
        var file = try fileBytes(keystore)
        file[9] = KeystoreHeader.argon2idIdentifier
        try writeBytes(file, to: keystore)
        // The zero cost fields are no Argon2id cost: refused before any derivation, with either secret.
        #expect(throws: KeystoreError.damaged(path: keystore.path)) { _ = try keystore.unlock(applicationKey: applicationKey) }
        #expect(throws: KeystoreError.damaged(path: keystore.path)) { _ = try keystore.unlock(passphrase: passphrase) }
    }

    @Test func aNonZeroCostFieldIsDamaged() throws {
        let keystore = newStore()
        try keystore.create(makeContents(), applicationKey: applicationKey)
        let good = try fileBytes(keystore)
        for index in 10..<18 {
            var file = good
            file[index] = 1
            #expect(throws: KeystoreError.damaged(path: "k")) {
                _ = try KeystoreFile.open(file, secret: .applicationKey(applicationKey), path: "k")
            }
        }
    }

    @Test func everyFlippedHeaderByteIsRejected() throws {
        let keystore = newStore()
        try keystore.create(makeContents(), applicationKey: applicationKey)
        let good = try fileBytes(keystore)
        for index in 0..<KeystoreHeader.length {
            var file = good
            file[index] ^= 0x01
            #expect(throws: KeystoreError.self) {
                _ = try KeystoreFile.open(file, secret: .applicationKey(applicationKey), path: "k")
            }
        }
    }

    @Test func aPassphraseForAnApplicationKeyKeystoreIsRefusedAsSuch() throws {
        let keystore = newStore()
        try keystore.create(makeContents(), applicationKey: applicationKey)
        let before = try fileBytes(keystore)
        #expect(throws: KeystoreError.unlockedByApplicationKey(path: keystore.path)) {
            _ = try keystore.unlock(passphrase: passphrase)
        }
        #expect(throws: KeystoreError.unlockedByApplicationKey(path: keystore.path)) {
            try keystore.changePassphrase(from: passphrase, to: passphrase, cost: .insecureTestOnly)
        }
        #expect(try fileBytes(keystore) == before)
        #expect(String(describing: KeystoreError.unlockedByApplicationKey(path: "k")).contains("application key, not a passphrase"))
    }

    @Test func anApplicationKeyForAPassphraseKeystoreIsRefusedAsSuch() throws {
        let keystore = newStore()
        try keystore.create(makeContents(), passphrase: passphrase, cost: .insecureTestOnly)
        #expect(throws: KeystoreError.unlockedByPassphrase(path: keystore.path)) {
            _ = try keystore.unlock(applicationKey: applicationKey)
        }
        #expect(String(describing: KeystoreError.unlockedByPassphrase(path: "k")).contains("passphrase, not an application key"))
        _ = try keystore.unlock(passphrase: passphrase)
    }

    @Test func forceReplacesAPassphraseKeystoreWithAnApplicationKeyOne() throws {
        let keystore = newStore()
        try keystore.create(makeContents(seed: "first"), passphrase: passphrase, cost: .insecureTestOnly)
        #expect(throws: KeystoreError.identityExists(path: keystore.path)) {
            try keystore.create(makeContents(seed: "second"), applicationKey: applicationKey)
        }
        try keystore.create(makeContents(seed: "second"), applicationKey: applicationKey, force: true)
        #expect(try keystore.unlock(applicationKey: applicationKey).identitySeed == makeContents(seed: "second").identitySeed)
    }

    /// The worked example of SECURITY.md ("The keystore"), computed there by
    /// an independent implementation (Python: hmac/hashlib HKDF, HChaCha20
    /// plus the `cryptography` package's ChaCha20-Poly1305).
    @Test func knownAnswer() throws {
        let key = SecureBytes(copying: Array(UInt8(0x00)...UInt8(0x1f)))
        let salt = Array(UInt8(0x20)...UInt8(0x2f))
        let nonce = Array(UInt8(0x30)...UInt8(0x47))
        let contents = KeystoreContents(identitySeed: SecureBytes(copying: Array(UInt8(0x40)...UInt8(0x5f))),
                                        databaseKey: SecureBytes(copying: Array(UInt8(0x60)...UInt8(0x7f))),
                                        createdAt: 1_700_000_000)
        let keyEncryptionKey = try KeystoreApplicationKey.keyEncryptionKey(key, salt: salt)
        #expect(Hex.encode(keyEncryptionKey) == "2667578bfc82c803916857aff35de473e0a31ad366adae5c064e02960b64cad6")
        let file = try KeystoreFile.seal(contents, header: KeystoreHeader(keyDerivation: .applicationKey, salt: salt, nonce: nonce),
                                         secret: .applicationKey(key), path: "k")
        let expected = "485553484b45595301020000000000000000202122232425262728292a2b2c2d2e2f"
            + "303132333435363738393a3b3c3d3e3f4041424344454647"
            + "ac8bd53468001fe2f33b9b568d2fef7d84aadba7a0100aff01db07e1a934e88fa1496d91215745ffb02e73b9aa62693c"
            + "3338443416396bc12e63c81dca5dc6b83441aee26f613aeeb6d2f927d0b31ab13bd0db780701810bc6c081026275ca7d"
            + "9930b6b1"
        #expect(Hex.encode(file) == expected)
        #expect(Hex.encode(SHA256.hash(file)) == "25d8e499c2aee742780d0d3d6a32f42da63ad92b564c6bcb9e6b339abeda6dc5")
        let opened = try KeystoreFile.open(try Hex.decode(expected), secret: .applicationKey(key), path: "k")
        #expect(opened.identitySeed == contents.identitySeed && opened.databaseKey == contents.databaseKey)
        #expect(opened.createdAt == 1_700_000_000)
    }
}
