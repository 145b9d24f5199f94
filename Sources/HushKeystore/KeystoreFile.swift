import Glibc
import HushCrypto

/// The keystore file of a data directory: the identity seed and the database
/// key, sealed with XChaCha20-Poly1305 under Argon2id(passphrase), with the
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

    /// Writes a new keystore holding `contents`. Refuses to replace an
    /// existing one unless `force` is set.
    public func create(_ contents: KeystoreContents, passphrase: SecureBytes, cost: Argon2id.Cost,
                       force: Bool = false, random: any RandomSource = SystemRandom()) throws(KeystoreError) {
        try directory.create()
        if exists && !force { throw .identityExists(path: path) }
        guard passphrase.count > 0 else { throw .passphraseUnavailable("the passphrase is empty") }
        let sealed = try KeystoreFile.seal(contents, passphrase: passphrase, cost: cost, random: random)
        try AtomicFile.write(sealed, to: path, random: random)
    }

    /// Opens the keystore with `passphrase`.
    public func unlock(passphrase: SecureBytes) throws(KeystoreError) -> KeystoreContents {
        guard directory.exists, exists else { throw .noIdentity(home: directory.path) }
        try directory.checkPermissions()
        guard let file = try AtomicFile.read(path, limit: KeystoreFile.maximumSize) else {
            throw .damaged(path: path)
        }
        return try KeystoreFile.open(file, passphrase: passphrase, path: path)
    }

    /// The header of the keystore on disk (costs and version), without unlocking.
    public func header() throws(KeystoreError) -> KeystoreHeader {
        guard exists else { throw .noIdentity(home: directory.path) }
        guard let file = try AtomicFile.read(path, limit: KeystoreFile.maximumSize) else { throw .damaged(path: path) }
        return try KeystoreHeader(parsing: file, path: path)
    }

    /// Re-wraps the same secrets under `newPassphrase` with a fresh salt and
    /// nonce. The database and its key are untouched.
    public func changePassphrase(from oldPassphrase: SecureBytes, to newPassphrase: SecureBytes, cost: Argon2id.Cost,
                                 random: any RandomSource = SystemRandom()) throws(KeystoreError) {
        let contents = try unlock(passphrase: oldPassphrase)
        guard newPassphrase.count > 0 else { throw .passphraseUnavailable("the new passphrase is empty") }
        let sealed = try KeystoreFile.seal(contents, passphrase: newPassphrase, cost: cost, random: random)
        try AtomicFile.write(sealed, to: path, random: random)
    }

    // MARK: Format

    static func seal(_ contents: KeystoreContents, passphrase: SecureBytes, cost: Argon2id.Cost,
                     random: any RandomSource) throws(KeystoreError) -> [UInt8] {
        let header = KeystoreHeader(cost: cost, salt: random.bytes(Argon2id.saltLength),
                                    nonce: random.bytes(XChaCha20Poly1305.nonceLength))
        let headerBytes = header.encoded
        do {
            let key = try Argon2id.deriveKey(passphrase: passphrase, salt: header.salt, cost: cost)
            let payload = contents.encoded()
            return headerBytes + (try XChaCha20Poly1305.seal(payload, key: key, nonce: header.nonce, associatedData: headerBytes))
        } catch {
            // Only an out-of-memory Argon2id can fail here.
            throw .io(operation: "derive the keystore key (out of memory?) for", path: "the keystore", errno: ENOMEM)
        }
    }

    static func open(_ file: [UInt8], passphrase: SecureBytes, path: String) throws(KeystoreError) -> KeystoreContents {
        let header = try KeystoreHeader(parsing: file, path: path)
        let headerBytes = Array(file[0..<KeystoreHeader.length])
        let key: SecureBytes
        do {
            key = try Argon2id.deriveKey(passphrase: passphrase, salt: header.salt, cost: header.cost)
        } catch {
            throw .io(operation: "derive the keystore key (out of memory?) for", path: path, errno: ENOMEM)
        }
        var plaintext: [UInt8]
        do {
            plaintext = try XChaCha20Poly1305.open(file[KeystoreHeader.length...], key: key, nonce: header.nonce, associatedData: headerBytes)
        } catch {
            throw .wrongPassphrase
        }
        let payload = SecureBytes(copying: plaintext, storage: .guarded)
        ConstantTime.wipe(&plaintext)
        return try KeystoreContents(decoding: payload, path: path)
    }
}
