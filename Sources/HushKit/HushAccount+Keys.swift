import HushCrypto
import HushKeystore

/// The key that unlocks the account.
extension HushAccount {
    /// Seals the account's keys under `new` instead of `current` (from a
    /// passphrase to an application key, a new passphrase, …). The identity,
    /// the database and every conversation stay as they are; the keystore is
    /// replaced in one atomic write, so a crash leaves the old one or the new.
    ///
    /// - Throws: `HushError` of kind `wrongKey` when `current` does not open
    ///   the keystore (nothing is changed).
    public func changeKeys(from current: KeyProvider, to new: KeyProvider) async throws(HushError) {
        try await Self.changeKeys(in: directory, from: current, to: new)
    }

    /// Seals the keys of the account in `directory` under `new` instead of
    /// `current`, as `changeKeys(from:to:)` does, without opening the
    /// account: its database is not read (and may be missing).
    ///
    /// - Throws: `HushError` of kind `noAccount`, `wrongKey` (nothing is
    ///   changed), `unsafePermissions`, `damagedKeystore` or `keystoreTooNew`.
    public static func changeKeys(in directory: String, from current: KeyProvider, to new: KeyProvider) async throws(HushError) {
        try await translatingErrors {
            let keystore = KeystoreFile(directory: DataDirectory(path: directory))
            let contents = try current.unlock(keystore)
            try new.create(keystore, holding: contents, replacing: true)
        }
    }

    /// Checks that `keys` open the keystore in `directory`, without opening
    /// the account's database: to confirm a passphrase before asking for a
    /// new one, say.
    ///
    /// - Throws: `HushError` of kind `noAccount`, `wrongKey`,
    ///   `unsafePermissions`, `damagedKeystore` or `keystoreTooNew`.
    public static func checkKeys(_ keys: KeyProvider, in directory: String) async throws(HushError) {
        try await translatingErrors {
            _ = try keys.unlock(KeystoreFile(directory: DataDirectory(path: directory)))
        }
    }

    /// How the keystore in `directory` is sealed now (format version,
    /// passphrase or application key, and the passphrase's stretching cost),
    /// read from its clear-text header without unlocking it.
    ///
    /// - Throws: `HushError` of kind `noAccount`, `damagedKeystore`,
    ///   `keystoreTooNew` or `storage`.
    public static func keystoreDetails(in directory: String) throws(HushError) -> KeystoreDetails {
        do {
            return KeystoreDetails(try KeystoreFile(directory: DataDirectory(path: directory)).header())
        } catch {
            throw HushError(wrapping: error)
        }
    }
}
