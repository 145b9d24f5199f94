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
        try await guarded {
            let keystore = KeystoreFile(directory: DataDirectory(path: directory))
            let contents = try current.unlock(keystore)
            try new.create(keystore, holding: contents, replacing: true)
        }
    }
}

extension HushAccount {
    /// How the keystore is sealed now (format version, passphrase or
    /// application key, and the passphrase's stretching cost).
    public func keystoreDetails() throws(HushError) -> KeystoreDetails {
        do {
            return KeystoreDetails(try KeystoreFile(directory: DataDirectory(path: directory)).header())
        } catch {
            throw HushError(wrapping: error)
        }
    }
}
