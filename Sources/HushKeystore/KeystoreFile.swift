#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushCrypto

/// The keystore file of a data directory: the identity seed and the database
/// key, sealed with XChaCha20-Poly1305 under Argon2id(passphrase) or, for an
/// application that keeps its own random key, HKDF(application key), with the
/// versioned header (`KeystoreHeader`) as associated data.
public struct KeystoreFile: Sendable {
    /// A keystore is a few hundred bytes; anything far larger is not one,
    /// and is refused before it is read into memory.
    public static let maximumSize = 64 * 1024

    public let path: String
    public let directory: DataDirectory

    public init(directory: DataDirectory) {
        self.directory = directory
        self.path = directory.keystorePath
    }

    public var exists: Bool { access(path, F_OK) == 0 }

    /// Returns when the keystore is there; otherwise says why not: a file in
    /// the home's place is named as one (ENOTDIR, from `checkPermissions`),
    /// not "no identity", which would send the user to `hush init` in vain.
    public func requireExists() throws(KeystoreError) {
        if !directory.exists { try directory.checkPermissions() }
        guard exists else { throw .noIdentity(home: directory.path) }
    }

    /// Writes a new keystore holding `contents`, sealed under
    /// Argon2id(`passphrase`) at `cost`. Refuses to replace an existing one
    /// unless `force` is set.
    public func create(_ contents: KeystoreContents, passphrase: SecureBytes, cost: Argon2id.Cost,
                       force: Bool = false, random: any RandomSource = SystemRandom()) throws(KeystoreError) {
        try create(contents, keyDerivation: .argon2id(cost), secret: .passphrase(passphrase), force: force, random: random)
    }

    /// Writes a new keystore holding `contents`, sealed under a key derived
    /// from `applicationKey` (KDF identifier 2, see `KeystoreApplicationKey`).
    /// The key must be 32 bytes from a cryptographic random source, kept by
    /// the application (in the platform keychain), never derived from a PIN
    /// or password. Refuses to replace an existing keystore unless `force` is set.
    public func create(_ contents: KeystoreContents, applicationKey: SecureBytes,
                       force: Bool = false, random: any RandomSource = SystemRandom()) throws(KeystoreError) {
        try KeystoreApplicationKey.check(applicationKey)
        try create(contents, keyDerivation: .applicationKey, secret: .applicationKey(applicationKey), force: force, random: random)
    }

    private func create(_ contents: KeystoreContents, keyDerivation: KeystoreHeader.KeyDerivation, secret: KeystoreSecret,
                        force: Bool, random: any RandomSource) throws(KeystoreError) {
        try directory.create()
        if exists && !force { throw .identityExists(path: path) }
        if case let .passphrase(passphrase) = secret, passphrase.count == 0 {
            throw .passphraseUnavailable("the passphrase is empty")
        }
        let sealed = try KeystoreFile.seal(contents, keyDerivation: keyDerivation, secret: secret, random: random, path: path)
        try AtomicFile.write(sealed, to: path, random: random)
    }

    /// Opens a passphrase keystore with `passphrase`. An application-key
    /// keystore is refused with `unlockedByApplicationKey`.
    public func unlock(passphrase: SecureBytes) throws(KeystoreError) -> KeystoreContents {
        try unlock(.passphrase(passphrase))
    }

    /// Opens an application-key keystore with `applicationKey`. A wrong key
    /// (or a modified file) is `wrongApplicationKey`, a key that is not 32
    /// bytes `applicationKeyWrongLength`, and a passphrase keystore is
    /// refused with `unlockedByPassphrase`.
    public func unlock(applicationKey: SecureBytes) throws(KeystoreError) -> KeystoreContents {
        try KeystoreApplicationKey.check(applicationKey)
        return try unlock(.applicationKey(applicationKey))
    }

    private func unlock(_ secret: KeystoreSecret) throws(KeystoreError) -> KeystoreContents {
        try requireExists()
        try directory.checkPermissions()
        guard let file = try AtomicFile.read(path, limit: KeystoreFile.maximumSize) else {
            throw .damaged(path: path)
        }
        return try KeystoreFile.open(file, secret: secret, path: path)
    }

    /// The header of the keystore on disk (version, and passphrase or
    /// application key with its costs), without unlocking.
    public func header() throws(KeystoreError) -> KeystoreHeader {
        try requireExists()
        guard let file = try AtomicFile.read(path, limit: KeystoreFile.maximumSize) else { throw .damaged(path: path) }
        return try KeystoreHeader(parsing: file, path: path)
    }

    /// Re-wraps the same secrets under `newPassphrase` with a fresh salt and
    /// nonce. The database and its key are untouched. An application-key
    /// keystore is refused (`unlockedByApplicationKey`): it has no passphrase.
    public func changePassphrase(from oldPassphrase: SecureBytes, to newPassphrase: SecureBytes, cost: Argon2id.Cost,
                                 random: any RandomSource = SystemRandom()) throws(KeystoreError) {
        let contents = try unlock(passphrase: oldPassphrase)
        guard newPassphrase.count > 0 else { throw .passphraseUnavailable("the new passphrase is empty") }
        let sealed = try KeystoreFile.seal(contents, keyDerivation: .argon2id(cost), secret: .passphrase(newPassphrase),
                                           random: random, path: path)
        try AtomicFile.write(sealed, to: path, random: random)
    }

    // MARK: Format

    /// What seals or opens a keystore.
    enum KeystoreSecret {
        case passphrase(SecureBytes)
        case applicationKey(SecureBytes)
    }

    static func seal(_ contents: KeystoreContents, passphrase: SecureBytes, cost: Argon2id.Cost,
                     random: any RandomSource) throws(KeystoreError) -> [UInt8] {
        try seal(contents, keyDerivation: .argon2id(cost), secret: .passphrase(passphrase), random: random, path: "the keystore")
    }

    /// Seals `contents` under a fresh salt and nonce from `random`.
    static func seal(_ contents: KeystoreContents, keyDerivation: KeystoreHeader.KeyDerivation, secret: KeystoreSecret,
                     random: any RandomSource, path: String) throws(KeystoreError) -> [UInt8] {
        let header = KeystoreHeader(keyDerivation: keyDerivation, salt: random.bytes(Argon2id.saltLength),
                                    nonce: random.bytes(XChaCha20Poly1305.nonceLength))
        return try seal(contents, header: header, secret: secret, path: path)
    }

    /// Seals `contents` under `header`, whose KDF must be the one of `secret`.
    static func seal(_ contents: KeystoreContents, header: KeystoreHeader, secret: KeystoreSecret,
                     path: String) throws(KeystoreError) -> [UInt8] {
        let headerBytes = header.encoded
        let key = try keyEncryptionKey(header, secret, path: path)
        do {
            return headerBytes + (try XChaCha20Poly1305.seal(contents.encoded(), key: key, nonce: header.nonce,
                                                              associatedData: headerBytes))
        } catch {
            // Key and nonce have their lengths by construction; as before, any failure is reported, not trapped.
            throw .io(operation: "seal the keystore (out of memory?) at", path: path, errno: ENOMEM)
        }
    }

    static func open(_ file: [UInt8], passphrase: SecureBytes, path: String) throws(KeystoreError) -> KeystoreContents {
        try open(file, secret: .passphrase(passphrase), path: path)
    }

    static func open(_ file: [UInt8], secret: KeystoreSecret, path: String) throws(KeystoreError) -> KeystoreContents {
        let header = try KeystoreHeader(parsing: file, path: path)
        let headerBytes = Array(file[0..<KeystoreHeader.length])
        let key = try keyEncryptionKey(header, secret, path: path)
        var plaintext: [UInt8]
        do {
            plaintext = try XChaCha20Poly1305.open(file[KeystoreHeader.length...], key: key, nonce: header.nonce, associatedData: headerBytes)
        } catch {
            if case .applicationKey = secret { throw .wrongApplicationKey }
            throw .wrongPassphrase
        }
        let payload = SecureBytes(copying: plaintext, storage: .guarded)
        ConstantTime.wipe(&plaintext)
        return try KeystoreContents(decoding: payload, path: path)
    }

    /// The key that seals the payload: Argon2id of a passphrase, or HKDF of an
    /// application key, as the header names. A secret of the other kind is
    /// refused before any derivation, so it is not reported as a wrong one.
    static func keyEncryptionKey(_ header: KeystoreHeader, _ secret: KeystoreSecret,
                                 path: String) throws(KeystoreError) -> SecureBytes {
        switch (header.keyDerivation, secret) {
        case let (.argon2id(cost), .passphrase(passphrase)):
            do {
                return try Argon2id.deriveKey(passphrase: passphrase, salt: header.salt, cost: cost)
            } catch {
                // Only an out-of-memory Argon2id can fail here.
                throw .io(operation: "derive the keystore key (out of memory?) for", path: path, errno: ENOMEM)
            }
        case let (.applicationKey, .applicationKey(applicationKey)):
            return try KeystoreApplicationKey.keyEncryptionKey(applicationKey, salt: header.salt)
        case (.applicationKey, .passphrase):
            throw .unlockedByApplicationKey(path: path)
        case (.argon2id, .applicationKey):
            throw .unlockedByPassphrase(path: path)
        }
    }
}
